/**
 * The stylesheet of the built-in pages: system fonts, no external resources, light and dark
 * schemes (`auto` follows the device), readable from 320 px wide up.
 */
export const css = `
:root{--brand:#3b5bdb;--brand-text:#fff;--bg:#f4f5f7;--card:#fff;--text:#1f2328;--muted:#59636e;--border:#d0d7de;--input:#fff;--error-bg:#fff1f0;--error-text:#a8071a;--radius:10px;color-scheme:light}
.theme-dark{--bg:#0d1117;--card:#161b22;--text:#e6edf3;--muted:#9198a1;--border:#30363d;--input:#0d1117;--error-bg:#3b1219;--error-text:#ffa198;color-scheme:dark}
@media (prefers-color-scheme:dark){.theme-auto{--bg:#0d1117;--card:#161b22;--text:#e6edf3;--muted:#9198a1;--border:#30363d;--input:#0d1117;--error-bg:#3b1219;--error-text:#ffa198;color-scheme:dark}}
*,*::before,*::after{box-sizing:border-box}
html,body{margin:0;padding:0}
body{min-height:100vh;display:flex;align-items:center;justify-content:center;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;padding:24px 16px}
.page{width:100%;max-width:380px}
.logo{display:block;max-width:160px;max-height:72px;margin:0 auto 20px}
.card{background:var(--card);border:1px solid var(--border);border-radius:var(--radius);padding:28px 24px;box-shadow:0 1px 3px rgba(0,0,0,.06)}
h1{font-size:1.35rem;margin:0 0 12px;text-align:center}
p{margin:0 0 12px;color:var(--muted);text-align:center}
.error{background:var(--error-bg);color:var(--error-text);border-radius:6px;padding:10px 12px;margin:0 0 18px;text-align:center}
.error p{color:inherit;margin:0}
form{margin:0}
.provider+.provider{margin-top:12px}
.divider{display:flex;align-items:center;gap:12px;color:var(--muted);font-size:.85rem;margin:20px 0}
.divider::before,.divider::after{content:"";flex:1;border-top:1px solid var(--border)}
label{display:block;font-weight:600;font-size:.9rem;margin:0 0 4px}
input[type=text],input[type=email],input[type=password],input[type=number],input[type=tel],input:not([type]){display:block;width:100%;font:inherit;color:var(--text);background:var(--input);border:1px solid var(--border);border-radius:6px;padding:10px 12px;margin:0 0 14px}
input:focus-visible,button:focus-visible,a:focus-visible{outline:2px solid var(--brand);outline-offset:2px}
button,.button{display:flex;width:100%;align-items:center;justify-content:center;gap:10px;min-height:44px;font:inherit;font-weight:600;border-radius:6px;border:1px solid transparent;padding:10px 14px;cursor:pointer;text-decoration:none;background:var(--brand);color:var(--brand-text)}
button:hover,.button:hover{filter:brightness(1.08)}
.provider-button{background:var(--btn-bg,var(--card));color:var(--btn-text,var(--text));border-color:var(--border)}
.provider-button img{width:22px;height:22px}
.site{color:var(--brand);word-break:break-all}
.actions{margin-top:18px}
`;
