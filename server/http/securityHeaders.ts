import helmet, { type FastifyHelmetOptions } from "@fastify/helmet";
import Fastify, { type FastifyInstance } from "fastify";

type Header = [name: string, value: number | string | string[]];

/**
 * The headers @fastify/helmet writes with `options`, read once from a throwaway server. Without a
 * content security policy (the web layer sets the page's, with its nonce) they are the same for
 * every request, while helmet's middleware computes and sets them again on each one: 5 % of a
 * guarded request from memory in a profile (issue 30). Names keep helmet's case.
 */
export async function helmetHeaders(options: FastifyHelmetOptions): Promise<Header[]> {
  const probe = Fastify({ logger: false });
  let headers: Header[] = [];
  try {
    await probe.register(helmet, options);
    // After helmet's own onRequest hooks (a plugin's hooks come first).
    probe.addHook("onRequest", (_request, reply, done) => {
      // Node's OutgoingMessage.getRawHeaderNames (names as set), missing from the types here.
      const names = (reply.raw as unknown as { getRawHeaderNames(): string[] }).getRawHeaderNames();
      headers = names.map((name): Header => [name, reply.raw.getHeader(name)!]);
      done();
    });
    probe.get("/", async () => "");
    await probe.inject({ url: "/" });
  } finally {
    await probe.close();
  }
  if (headers.length === 0) throw new Error("helmet set no header on the probe's request");
  return headers;
}

/** Sets helmet's headers (`helmetHeaders`) on every answer, as its plugin did, without its per-request work. */
export async function registerSecurityHeaders(app: FastifyInstance, options: FastifyHelmetOptions): Promise<void> {
  const headers = await helmetHeaders(options);
  app.addHook("onRequest", (_request, reply, done) => {
    for (const [name, value] of headers) reply.raw.setHeader(name, value);
    done();
  });
}
