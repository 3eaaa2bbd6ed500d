import { buildSystemPrompt, PROMPT_PROJECT_LIMIT } from '../../../src/chat/system-prompt';

describe('chat system prompt', () => {
  it('states the channel’s project as the default and lists projects', () => {
    const prompt = buildSystemPrompt({
      projectId: 'web',
      projectName: 'Website',
      workspaceDir: '/srv/ws',
      projects: [
        { id: 'web', name: 'Website', status: 'ACTIVE', workspace: '/srv/ws/web' },
        { id: 'api', name: 'api', status: 'PAUSED', workspace: '/srv/ws/api' },
      ],
    });
    expect(prompt).toContain(
      'This conversation is in the channel of project `web` (Website). Use it as project_id unless the person names another project.',
    );
    expect(prompt).toContain('- `web` Website (workspace /srv/ws/web)');
    expect(prompt).toContain('- `api` api (paused, workspace /srv/ws/api)');
    expect(prompt).toContain('/srv/ws');
    expect(prompt).toMatch(/create_task/);
    expect(prompt).toMatch(/acceptance criteria/);
    expect(prompt).toMatch(/ask one short question/);
    expect(prompt).toMatch(/Never make up ids/);
    expect(prompt).toMatch(/Never list the tools you called/);
    expect(prompt).not.toMatch(/Actions taken/);
  });

  it('without a channel project, says to ask; long project lists are capped', () => {
    const projects = Array.from({ length: PROMPT_PROJECT_LIMIT + 5 }, (_, i) => ({ id: `p${i}`, name: `p${i}` }));
    const prompt = buildSystemPrompt({ workspaceDir: '/w', projects });
    expect(prompt).toContain('not in a project channel');
    expect(prompt).toContain('- `p39` p39');
    expect(prompt).not.toContain('- `p40` p40');
    expect(prompt).toContain('… and 5 more (list_projects shows all).');
    expect(buildSystemPrompt({ workspaceDir: '/w', projects: [] })).toContain('There are no projects yet');
  });
});
