/**
 * Preloaded into `webjobs serve` by bench:serve (node --import): the event loop's
 * delay, as perf_hooks.monitorEventLoopDelay samples it every 10 ms. On SIGUSR2
 * serve prints one line to stderr with the figures since the last SIGUSR2 and starts
 * afresh, so the bench reads the delay of exactly the span it measures:
 *   loop-delay p50=1.2 p99=8.4 max=20.1 samples=512
 * Nothing of it is in the package: serve itself knows nothing of it.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

const RESOLUTION_MS = 10;
const histogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
histogram.enable();

const ms = (ns: number) => (ns / 1e6).toFixed(1);

process.on('SIGUSR2', () => {
  process.stderr.write(
    `loop-delay p50=${ms(histogram.percentile(50))} p99=${ms(histogram.percentile(99))} max=${ms(histogram.max)} samples=${histogram.count}\n`,
  );
  histogram.reset();
});
