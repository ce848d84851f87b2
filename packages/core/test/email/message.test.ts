import { describe, expect, it } from "vitest";
import { emailMessage, normalizeEmailIdentifier } from "../../src/providers/email.js";

describe("the default e-mail", () => {
  it("has the link and the host in both forms, and escapes what it shows", () => {
    const url = 'http://app.test/auth/callback/x?token=t&email=a%40b.c&x="><script>';
    const expires = new Date(Date.now() + 10 * 60_000);
    const message = emailMessage({
      url,
      host: "app.test",
      theme: { brandColor: "red;}</style><script>", buttonText: "#fff" },
      expires,
    });
    expect(message.subject).toBe("Sign in to app.test");
    expect(message.text).toContain(url);
    expect(message.text).toContain("10 minutes");
    expect(message.html).not.toContain("<script>");
    expect(message.html).toContain("x=&quot;&gt;&lt;script&gt;");
    expect(message.html).toContain("app\u200b.test");
    // An unsafe brand colour falls back to the default.
    expect(message.html).toContain("background:#3b5bdb");
    expect(message.html).not.toContain("red;}");
  });

  it("uses a safe brand colour and the dark scheme", () => {
    const message = emailMessage({
      url: "http://a.test/",
      host: "a.test",
      theme: { brandColor: "#ff0066", colorScheme: "dark" },
    });
    expect(message.html).toContain("background:#ff0066");
    expect(message.html).toContain("background:#0d1117");
  });
});

describe("the default e-mail with a one-time code", () => {
  const url = "http://app.test/auth/callback/x?token=t&email=a%40b.c";
  const expires = new Date(Date.now() + 10 * 60_000);

  it("shows the code and the link in both forms, and says both work once", () => {
    const message = emailMessage({ url, host: "app.test", expires, code: "049281" });
    expect(message.text).toContain("Your sign-in code: 049281");
    expect(message.text).toContain(url);
    expect(message.text).toContain("The code and the link work once, within 10 minutes.");
    expect(message.html).toContain(">049281</span>");
    expect(message.html).toContain(`href="${url.replace(/&/g, "&amp;")}"`);
  });

  it("leaves the link out with link: false", () => {
    const message = emailMessage({ url, host: "app.test", expires, code: "049281", link: false });
    expect(message.text).toContain("049281");
    expect(message.text).not.toContain(url);
    expect(message.html).not.toContain("/auth/callback/");
    expect(message.text).toContain("The code works once");
  });

  it("escapes a code from a custom caller", () => {
    const message = emailMessage({ url, host: "app.test", code: "<img src=x onerror=alert(1)>" });
    expect(message.html).not.toContain("<img");
    expect(message.html).toContain("&lt;img");
  });
});

describe("normalizeEmailIdentifier", () => {
  it.each([
    ["  Ada@Example.COM ", "ada@example.com"],
    ["o'brien+tag@mail.example.co.uk", "o'brien+tag@mail.example.co.uk"],
    ["first.last@xn--bcher-kva.example", "first.last@xn--bcher-kva.example"],
  ])("accepts %j as %j", (input, output) => {
    expect(normalizeEmailIdentifier(input)).toBe(output);
  });

  it.each([
    "a@b.example,c@d.example",
    "a@@b.example",
    ".a@b.example",
    "a..b@b.example",
    "a@-b.example",
    "a@b.123",
    "a@xn--zz.example",
    "a@ab--cd.example",
    `${"a".repeat(65)}@b.example`,
    "a@b.example\u0000",
    "b\u00fccher@b.example",
    "a@b\u00fccher.example",
  ])("refuses %j", (input) => {
    expect(() => normalizeEmailIdentifier(input)).toThrow();
  });
});
