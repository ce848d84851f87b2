/**
 * Development only: a real SMTP server on a loopback port that keeps the messages it receives, so
 * that magic links work offline. The Nodemailer provider sends to it like to any mail server;
 * `/dev/mail` lists what arrived. In production, point the provider at your mail service instead.
 */
import type { AddressInfo } from "node:net";
import { simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

/** One caught message. */
export interface CaughtMail {
  /** Its number: the messages the catcher received since it started, counted from 1. */
  id: number;
  to: string[];
  subject: string;
  date: Date;
  text: string;
  /** Its HTML part ("" when it has none). */
  html: string;
  /** The links of the message (the sign-in link among them). */
  links: string[];
  /** The sign-in code the message shows, if any. */
  code?: string | undefined;
}

export interface MailCatcher {
  port: number;
  /** The messages, newest first (the last 50). */
  messages: CaughtMail[];
  close(): Promise<void>;
}

/** Starts the SMTP server on 127.0.0.1 (`port` 0 picks a free one). */
export async function startMailCatcher(port = 0): Promise<MailCatcher> {
  const messages: CaughtMail[] = [];
  let received = 0;
  const server = new SMTPServer({
    authOptional: true, // a local catcher: no login, no TLS
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const text = mail.text ?? "";
          messages.unshift({
            id: ++received,
            to: session.envelope.rcptTo.map((r) => r.address),
            subject: mail.subject ?? "",
            date: mail.date ?? new Date(),
            text,
            html: mail.html || "",
            links: [...new Set(text.match(/https?:\/\/[^\s<>"]+/g) ?? [])],
            code: /code: (\d+)/i.exec(text)?.[1],
          });
          messages.length = Math.min(messages.length, 50);
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  return {
    port: (server.server.address() as AddressInfo).port,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
