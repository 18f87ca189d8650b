// The request histogram: Prometheus buckets (cumulative, le inclusive, +Inf), _sum and _count, one series per
// label set, written by prom-client's registry and summed over cluster workers by its aggregator.
import { AggregatorRegistry, Registry } from 'prom-client';
import t from 'tap';
import { SeriesHistogram } from '../../src/series-histogram.js';

function histogram(registry = new Registry()) {
  return { registry, h: new SeriesHistogram({ name: 'test_seconds', help: 'Test durations', buckets: [0.1, 1], registers: [registry] }) };
}

t.test('observations land in cumulative buckets whose bounds are inclusive, with +Inf, _sum and _count', async (t) => {
  const { registry, h } = histogram();
  const s = h.series({ route: '/a' });
  for (const v of [0.05, 0.1, 0.5, 2]) s.observe(v);
  t.equal(
    await registry.metrics(),
    [
      '# HELP test_seconds Test durations',
      '# TYPE test_seconds histogram',
      'test_seconds_bucket{route="/a",le="0.1"} 2',
      'test_seconds_bucket{route="/a",le="1"} 3',
      'test_seconds_bucket{route="/a",le="+Inf"} 4',
      'test_seconds_sum{route="/a"} 2.65',
      'test_seconds_count{route="/a"} 4',
      '',
    ].join('\n'),
  );
});

t.test('asking twice for one label set, in any key order, gives the same series', async (t) => {
  const { h } = histogram();
  t.equal(h.series({ a: '1', b: '2' }), h.series({ b: '2', a: '1' }));
  t.not(h.series({ a: '1', b: '2' }), h.series({ a: '1', b: '3' }));
});

t.test('buckets that are not increasing are refused', async (t) => {
  t.throws(() => new SeriesHistogram({ name: 'bad_seconds', help: 'x', buckets: [1, 0.5], registers: [] }), /increasing/);
  t.throws(() => new SeriesHistogram({ name: 'bad_seconds', help: 'x', buckets: [], registers: [] }), /increasing/);
});

t.test("two workers' series are summed by prom-client's cluster aggregator", async (t) => {
  const one = histogram();
  const two = histogram();
  one.h.series({ route: '/a' }).observe(0.05);
  two.h.series({ route: '/a' }).observe(0.5);
  two.h.series({ route: '/b' }).observe(5);
  const summed = AggregatorRegistry.aggregate([await one.registry.getMetricsAsJSON(), await two.registry.getMetricsAsJSON()]);
  const text = await summed.metrics();
  t.match(text, 'test_seconds_bucket{route="/a",le="0.1"} 1');
  t.match(text, 'test_seconds_bucket{route="/a",le="1"} 2');
  t.match(text, 'test_seconds_count{route="/a"} 2');
  t.match(text, 'test_seconds_count{route="/b"} 1');
});
