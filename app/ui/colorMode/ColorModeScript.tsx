import { COLOR_MODE_KEY } from "./colorMode";

/**
 * Runs in <head> before the body paints, so a server-rendered page never flashes the wrong theme.
 * It must stay tiny and self-contained; the CSP admits it through the response's nonce.
 */
const script = `(function(){try{var m=localStorage.getItem(${JSON.stringify(COLOR_MODE_KEY)});var d=m==="dark"||(m!=="light"&&window.matchMedia("(prefers-color-scheme: dark)").matches);var r=document.documentElement;r.classList.toggle("dark",d);r.style.colorScheme=d?"dark":"light"}catch(e){}})()`;

export function ColorModeScript({ nonce }: { nonce?: string }) {
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: script }} />;
}
