/**
 * index.html's only script is the small first module (src/early.ts), which imports the
 * app itself dynamically so that its own request goes out first. A dynamic import is
 * found by the browser only once that module has run: this plugin names the app's chunk
 * (and the chunks it imports) as `<link rel="modulepreload">` in the HTML, so its
 * download starts with the page's instead of a round trip later.
 */
import type { Plugin } from 'vite';

/**
 * `entries`: the modules index.html's script imports (the libraries' facade, then the app),
 * as ids ending in their path; `base`: the build's base URL.
 */
export function preloadApp(entries: readonly string[], base: string): Plugin {
  return {
    name: 'preload-app',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const chunks = Object.values(ctx.bundle ?? {}).flatMap((c) => (c.type === 'chunk' ? [c] : []));
        const files = new Set<string>();
        for (const entry of entries) {
          const chunk = chunks.find((c) => c.facadeModuleId?.endsWith(entry));
          if (!chunk) throw new Error(`preload-app: no chunk for ${entry}`);
          for (const file of [chunk.fileName, ...chunk.imports]) files.add(file);
        }
        // The HTML's own script is loaded by its <script> tag already.
        files.delete(ctx.chunk?.fileName ?? '');
        return [...files].map((file) => ({
          tag: 'link',
          // Low: the shell's first paint and the avatar's photo (the largest paint) come first;
          // the app only has to arrive before the visitor has read the screen.
          attrs: { rel: 'modulepreload', crossorigin: true, fetchpriority: 'low', href: `${base}${file}` },
          injectTo: 'head' as const,
        }));
      },
    },
  };
}
