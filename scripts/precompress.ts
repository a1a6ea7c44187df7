/**
 * After `react-router build`: writes a Brotli (`.br`, quality 11) and a gzip (`.gz`, level 9) copy
 * beside every compressible file of the client build, once, so the server sends them as they are
 * (`@fastify/static` with `preCompressed`) instead of compressing each response on the fly at a
 * lower level. Browsers that accept neither get the plain file.
 *
 *   node --import tsx scripts/precompress.ts [buildDir]
 */
import fs from "node:fs";
import path from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";

const COMPRESSIBLE = /\.(js|mjs|css|html|json|svg|txt|map|webmanifest)$/;
/** Below this, compression saves less than the headers it costs. */
const MIN_BYTES = 1024;

/** Brotli at its best level, as the server sends a precompressed file. */
export function brotli(content: Buffer): Buffer {
  return brotliCompressSync(content, {
    params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY, [constants.BROTLI_PARAM_SIZE_HINT]: content.length },
  });
}

export function precompress(clientDir: string): { files: number; bytes: number; brotliBytes: number } {
  let files = 0;
  let bytes = 0;
  let brotliBytes = 0;
  for (const entry of fs.readdirSync(clientDir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !COMPRESSIBLE.test(entry.name)) continue;
    const file = path.join(entry.parentPath, entry.name);
    const content = fs.readFileSync(file);
    if (content.length < MIN_BYTES) continue;
    const br = brotli(content);
    fs.writeFileSync(`${file}.br`, br);
    fs.writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
    files += 1;
    bytes += content.length;
    brotliBytes += br.length;
  }
  return { files, bytes, brotliBytes };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const clientDir = path.resolve(process.argv[2] ?? "build", "client");
  const { files, bytes, brotliBytes } = precompress(clientDir);
  console.log(`Precompressed ${files} files: ${Math.round(bytes / 1024)} KB → ${Math.round(brotliBytes / 1024)} KB Brotli (plus gzip)`);
}
