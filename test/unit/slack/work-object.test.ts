import {
  taskEntity,
  taskEntityUrl,
  taskIdOfEntity,
  taskIdOfLink,
  taskLink,
  WORK_OBJECT_LIMITS,
} from '../../../src/slack/blocks/work-object';
import { workObjectProblems } from '../../support/fake-slack-work-objects';

const facts = {
  id: 'swift-fox-042',
  title: 'Fix it',
  status: 'IN_PROGRESS',
  projectId: 'web',
  agent: 'agent-1',
  priority: 2,
  url: taskEntityUrl('swift-fox-042', 'CPROJ'),
};

describe('a task as a Work Object', () => {
  it('cuts long text within its caps without leaving half an escape, and drops control characters', () => {
    const title = `${'a'.repeat(WORK_OBJECT_LIMITS.title - 3)}&&& more\u0007`;
    const entity = taskEntity({ ...facts, title, description: `line one\nline two ${'<b>'.repeat(500)}` });
    const shown = entity.entity_payload.attributes.title.text;
    expect(shown.length).toBeLessThanOrEqual(WORK_OBJECT_LIMITS.title);
    expect(shown).not.toMatch(/&(?!amp;|lt;|gt;)/);
    const description = (entity.entity_payload.fields as Record<string, { value: string }> | undefined)?.description;
    expect(description?.value.length).toBeLessThanOrEqual(WORK_OBJECT_LIMITS.description);
    expect(description?.value).not.toMatch(/[\n<>]/);
    expect(workObjectProblems('chat.postMessage', { metadata: { entities: [entity] } })).toEqual([]);
  });

  it('names the task by its external_ref, else by the aq_task of its URL', () => {
    expect(taskIdOfEntity({ external_ref: { id: 'a-b-1' }, entity_url: taskEntityUrl('other', null) })).toBe('a-b-1');
    expect(taskIdOfEntity({ entity_url: taskEntityUrl('swift-fox-042', 'C1') })).toBe('swift-fox-042');
    expect(taskIdOfEntity({ entity_url: 'not a url' })).toBeNull();
  });

  it('makes task links under AQ_PUBLIC_URL and reads back only its own', () => {
    const base = 'https://aq.example.com/queue';
    expect(taskLink(`${base}/`, 'swift-fox-042')).toBe(`${base}/tasks/swift-fox-042`);
    expect(taskEntityUrl('swift-fox-042', 'C1', base)).toBe(`${base}/tasks/swift-fox-042`);
    expect(taskIdOfLink(`${base}/tasks/swift-fox-042`, base)).toBe('swift-fox-042');
    expect(taskIdOfLink('https://AQ.example.com/queue/tasks/swift-fox-042/', base)).toBe('swift-fox-042');
    expect(taskIdOfLink('https://evil.example/queue/tasks/swift-fox-042', base)).toBeNull();
    expect(taskIdOfLink('https://aq.example.com/tasks/swift-fox-042', base)).toBeNull();
    expect(taskIdOfLink(`${base}/tasks/a/b`, base)).toBeNull();
    expect(taskIdOfLink(`${base}/tasks/%E0%A4%A`, base)).toBeNull();
    expect(taskIdOfLink('not a url', base)).toBeNull();
  });

  it('leaves out what a task does not have (no agent, no PR) instead of sending empty fields', () => {
    const entity = taskEntity({ ...facts, agent: null, priority: null, prUrl: 'javascript:alert(1)' });
    expect(entity.entity_payload.fields).toEqual({ status: { value: 'running', type: 'string' } });
    expect(entity.entity_payload.custom_fields?.map((f) => f.key)).toEqual(['project']);
  });
});
