// SPDX-License-Identifier: Apache-2.0
// Relative asset paths (base './') so `cityforge serve` can ship dist/ at / or any sub-path.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  base: './',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    chunkSizeWarningLimit: 2000,
    sourcemap: false,
    // The city viewer, and the island page (`cityforge serve ISLAND_DIR`, /island.html).
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('./index.html', import.meta.url)),
        island: fileURLToPath(new URL('./island.html', import.meta.url)),
      },
    },
  },
  server: {
    // `npm run dev` against a running `cityforge serve --port 8080`.
    proxy: {
      '/city': 'http://127.0.0.1:8080',
      '/island': 'http://127.0.0.1:8080',
      '/live': { target: 'ws://127.0.0.1:8080', ws: true },
    },
  },
});
