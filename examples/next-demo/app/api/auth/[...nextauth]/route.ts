// Latchkey's routes: /api/auth/signin, /api/auth/callback/<provider>, /api/auth/session, ...
import { handlers } from "../../../../lib/auth";

export const { GET, POST } = handlers;
