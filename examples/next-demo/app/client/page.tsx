import { ClientSession } from "./client-session";

export default function ClientPage() {
  return (
    <>
      <h1>Client session</h1>
      <ClientSession />
    </>
  );
}
