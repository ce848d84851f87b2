// The bare Route Handler: the reference cost of a Next.js route.
export const dynamic = "force-dynamic";

export function GET() {
  return Response.json({ ok: true });
}
