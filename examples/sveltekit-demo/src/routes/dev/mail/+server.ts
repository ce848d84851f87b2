// Development only: the messages the demo's SMTP server caught, with their links.
import { mailBody } from "@latchkey/express-demo/pages";
import { error } from "@sveltejs/kit";
import { demoOf, page } from "$lib/server/demo";
import type { RequestHandler } from "./$types";

export const GET: RequestHandler = (event) => {
  const { mailbox } = demoOf(event);
  if (!mailbox) error(404, "No mail catcher in production");
  return page(event, "Mail", mailBody(mailbox));
};
