// Development only: the messages the start script's SMTP server caught, with their links.
export const dynamic = "force-dynamic";

interface Mail {
  to: string[];
  subject: string;
  date: string;
  links: string[];
  code?: string;
}

export default async function MailPage() {
  const source = process.env.DEMO_MAIL_URL;
  if (!source) return <p>No development mail server: sign-in e-mails go to EMAIL_SERVER.</p>;
  const messages = (await (await fetch(source, { cache: "no-store" })).json()) as Mail[];
  return (
    <>
      <h1>Mail</h1>
      <p>
        The {messages.length} message(s) the development SMTP server caught, newest first.{" "}
        <a href="/dev/mail">Refresh</a>
      </p>
      <ul>
        {messages.map((m) => (
          <li className="mail" key={`${m.date}-${m.to.join()}-${m.code ?? m.links[0]}`}>
            <strong>{m.subject}</strong> to <span className="to">{m.to.join(", ")}</span>
            <br />
            {m.code ? (
              <>
                Code: <code className="code">{m.code}</code>
                <br />
              </>
            ) : null}
            {m.links.map((link) => (
              <a key={link} href={link}>
                {link}
              </a>
            ))}
          </li>
        ))}
      </ul>
    </>
  );
}
