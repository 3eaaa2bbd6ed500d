import type { EntityName } from '@mikro-orm/core';
import { makeTestRuntime, type TestRuntime } from '../../support/runtime';

/**
 * An entity read through the ORM and left alone is not written back. Times are stored as epoch
 * milliseconds but read as Dates: when the two did not compare equal, every transaction that read
 * an entity ended with an UPDATE of its times, setting them back to what it had read (a
 * concurrent process's started_at or completed_at lost) and costing a write per read task on
 * the fleet's claims.
 */
describe('entities read and left alone', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await makeTestRuntime();
    await rt.exec('create_project', { name: 'web' });
    const first = (await rt.exec('create_task', { project_id: 'web', title: 'First', description: 'One.' })).created as string;
    const second = (await rt.exec('create_task', { project_id: 'web', title: 'Second', description: 'Two.' })).created as string;
    await rt.exec('add_dependency', { task_id: second, depends_on: first });
    await rt.exec('create_agent', { name: 'Solo' });
    await rt.exec('create_hook', {
      project_id: 'web',
      name: 'Check',
      trigger: { type: 'periodic', interval_seconds: 86_400 },
      prompt_template: 'Look around.',
    });
    await rt.exec('set_task_status', { task_id: first, status: 'COMPLETED' });
  });

  afterAll(async () => {
    await rt?.cleanup();
  });

  it('compares every time property by its value, whatever the entity', () => {
    const em = rt.db.em();
    const comparator = em.getComparator();
    const dated = Object.values(em.getMetadata().getAll()).flatMap((meta) =>
      meta.props.filter((p) => p.runtimeType === 'Date').map((p) => ({ entity: meta.className, property: p.name })),
    );
    expect(dated.length).toBeGreaterThan(20);
    const differing = dated.filter(
      ({ entity, property }) =>
        Object.keys(comparator.diffEntities(entity, { [property]: new Date(1_700_000_000_123) }, { [property]: 1_700_000_000_123 }))
          .length > 0,
    );
    expect(differing).toEqual([]);
  });

  it('writes nothing back when a transaction only read them', async () => {
    const metas = Object.values(rt.db.em().getMetadata().getAll()).filter((meta) => !meta.embeddable && !meta.virtual);
    const read: string[] = [];
    const dirty = await rt.db.transaction(async (em) => {
      for (const meta of metas) {
        if ((await em.find(meta.class as EntityName<object>, {}, { limit: 5 })).length > 0) read.push(meta.className);
      }
      const uow = em.getUnitOfWork();
      uow.computeChangeSets();
      return uow.getChangeSets().map((c) => `${c.name} ${Object.keys(c.payload).join(', ')}`);
    });
    expect(read).toEqual(expect.arrayContaining(['Project', 'Task', 'TaskDependency', 'Agent', 'Hook', 'Event']));
    expect(dirty).toEqual([]);
  });
});
