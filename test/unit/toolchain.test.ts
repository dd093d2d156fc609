import 'reflect-metadata';

function Marked(): PropertyDecorator {
  return () => undefined;
}

class Sample {
  @Marked()
  count!: number;
}

describe('toolchain', () => {
  it('runs on Node 24 with decorator metadata', () => {
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
    expect(Reflect.getMetadata('design:type', Sample.prototype, 'count')).toBe(Number);
  });
});
