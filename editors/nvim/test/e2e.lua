-- End-to-end check of the plugin in a real headless Neovim against the real `codegraph lsp`.
-- Run by tests/codegraph/e2e_nvim.rs:
--   CODEGRAPH_BIN=... CODEGRAPH_REPO=<a copy of fixtures/python with a .git> CODEGRAPH_METHOD=enable|start \
--   nvim --headless --clean --cmd 'set rtp^=editors/nvim' -c 'luafile editors/nvim/test/e2e.lua'
-- Prints `ok: <check>` per passing check; exits 1 with the failures on stderr otherwise.
local bin = assert(os.getenv('CODEGRAPH_BIN'), 'CODEGRAPH_BIN')
local repo = assert(os.getenv('CODEGRAPH_REPO'), 'CODEGRAPH_REPO')
local method = os.getenv('CODEGRAPH_METHOD') or 'enable'
local TIMEOUT = 20000

local failures = {}
local function check(name, actual, expected)
  if vim.deep_equal(actual, expected) then
    io.stdout:write('ok: ' .. name .. '\n')
  else
    table.insert(failures, name .. ':\n  expected ' .. vim.inspect(expected) .. '\n  got      ' .. vim.inspect(actual))
  end
end

local function wait(what, condition)
  if not vim.wait(TIMEOUT, condition, 20) then
    error('timed out waiting for ' .. what)
  end
end

-- vim.notify is how the :Codegraph command answers; keep what it says.
local notes = {}
vim.notify = function(message)
  table.insert(notes, message)
end
local function next_note(what)
  local before = #notes
  return function()
    wait(what, function()
      return #notes > before
    end)
    return notes[#notes]
  end
end

local function relative(path)
  return path:sub(#repo + 2)
end

local function codegraph_client(bufnr)
  return vim.lsp.get_clients({ name = 'codegraph', bufnr = bufnr })[1]
end

local function status(client)
  -- `client:request_sync` on 0.11+, `client.request_sync` on 0.10.
  local answer
  if vim.fn.has('nvim-0.11') == 1 then
    answer = client:request_sync('codegraph/status', vim.NIL, TIMEOUT, 0)
  else
    answer = client.request_sync('codegraph/status', vim.NIL, TIMEOUT, 0)
  end
  return answer and answer.result
end

--- Incoming calls through Neovim's own UI path (vim.lsp.buf.incoming_calls fills the quickfix
--- list), at the `nth` `def authenticate` of service.py.
local function incoming_calls_of_authenticate(service)
  vim.api.nvim_set_current_buf(service)
  local lines = vim.api.nvim_buf_get_lines(service, 0, -1, false)
  local seen = 0
  for index, line in ipairs(lines) do
    local column = line:find('def authenticate', 1, true)
    if column then
      seen = seen + 1
      if seen == 2 then
        vim.api.nvim_win_set_cursor(0, { index, column + 4 })
      end
    end
  end
  vim.fn.setqflist({}, 'r', { items = {} })
  vim.lsp.buf.incoming_calls()
  wait('incoming calls', function()
    return #vim.fn.getqflist() > 0
  end)
  local calls = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(calls, string.format('%s:%d:%d %s', relative(vim.api.nvim_buf_get_name(item.bufnr)), item.lnum, item.col, item.text))
  end
  table.sort(calls)
  vim.cmd('cclose')
  vim.api.nvim_set_current_buf(service)
  return calls
end

local function main()
  local codegraph = require('codegraph')
  local cmd = { bin, 'lsp', '--stdio', '--no-cache' }
  if method == 'enable' then
    -- lsp/codegraph.lua, as vim.lsp.enable reads it from the runtimepath.
    check('lsp/codegraph.lua cmd', vim.lsp.config.codegraph.cmd, { 'codegraph', 'lsp', '--stdio' })
    check('lsp/codegraph.lua filetypes', vim.lsp.config.codegraph.filetypes, codegraph.filetypes)
    check('lsp/codegraph.lua root_markers', vim.lsp.config.codegraph.root_markers, { '.git', '.hg', '.jj', '.codegraph' })
    codegraph.setup({ cmd = cmd })
    check('setup() configured vim.lsp.config', vim.lsp.config.codegraph.cmd, cmd)
  else
    codegraph.setup({ cmd = cmd, method = 'start' })
  end

  vim.cmd.edit(vim.fn.fnameescape(repo .. '/shop/auth/service.py'))
  local service = vim.api.nvim_get_current_buf()
  wait('the server to attach', function()
    return codegraph_client(service) ~= nil
  end)
  local client = codegraph_client(service)
  check('root directory', client.root_dir, repo)
  wait('the index', function()
    local answer = status(client)
    return answer and answer.indexing == 0 and answer.roots[1] and answer.roots[1].files > 0
  end)
  local first_status = status(client)
  check('status files', first_status.roots[1].files, 12)

  local note = next_note(':Codegraph status')
  vim.cmd('Codegraph status')
  check(
    ':Codegraph status',
    note(),
    string.format('codegraph: %s: 12 files, %d entities (revision %d)', repo, first_status.roots[1].entities, first_status.roots[1].revision)
  )

  check('incoming calls of AuthService.authenticate', incoming_calls_of_authenticate(service), { 'shop/app/main.py:12:21 main' })

  local symbols
  vim.lsp.buf.workspace_symbol('authenticate', {
    on_list = function(list)
      symbols = list.items
    end,
  })
  wait('workspace symbols', function()
    return symbols ~= nil
  end)
  local shown = {}
  for _, item in ipairs(symbols) do
    table.insert(shown, string.format('%s:%d %s', relative(item.filename), item.lnum, item.text))
  end
  table.sort(shown)
  check('workspace symbols "authenticate"', shown, {
    'shop/auth/service.py:14 [Method] authenticate',
    'shop/auth/service.py:24 [Method] authenticate',
  })

  -- An unsaved edit in another buffer: a new caller, seen by the next request.
  local main_path = repo .. '/shop/app/main.py'
  local on_disk = vim.fn.readfile(main_path)
  vim.cmd.edit(vim.fn.fnameescape(main_path))
  local main_buffer = vim.api.nvim_get_current_buf()
  wait('the server to attach to main.py', function()
    return codegraph_client(main_buffer) ~= nil
  end)
  vim.api.nvim_buf_set_lines(main_buffer, -1, -1, false, {
    '',
    '',
    'def audit() -> str:',
    '    checker = AuthService(pepper="x")',
    '    return checker.authenticate(Admin("bob", "y"), "pw")',
  })
  -- Neovim sends didChange after `flags.debounce_text_changes` (150 ms), and a request flushes
  -- pending changes of its own buffer only: give the edit in the other buffer time to be sent,
  -- as a user switching buffers would.
  vim.wait(400)
  check('main.py is modified and unsaved', { vim.bo[main_buffer].modified, vim.fn.readfile(main_path) }, { true, on_disk })
  check(
    'incoming calls after the unsaved edit',
    incoming_calls_of_authenticate(service),
    { 'shop/app/main.py:12:21 main', 'shop/app/main.py:22:20 audit' }
  )

  note = next_note(':Codegraph reindex')
  vim.cmd('Codegraph reindex')
  local reindexed = note()
  check(':Codegraph reindex', vim.startswith(reindexed, 'codegraph: reindexed\n' .. repo .. ': 12 files, '), true)
  check(
    'incoming calls after the reindex keep the unsaved edit',
    incoming_calls_of_authenticate(service),
    { 'shop/app/main.py:12:21 main', 'shop/app/main.py:22:20 audit' }
  )

  note = next_note(':Codegraph mcp-config vscode')
  vim.cmd('Codegraph mcp-config vscode')
  check(':Codegraph mcp-config hint', note(), 'codegraph: # VS Code: ' .. repo .. '/.vscode/mcp.json')
  local config = vim.json.decode(table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n'))
  check(':Codegraph mcp-config vscode', config, {
    servers = { codegraph = { type = 'stdio', command = vim.fn.resolve(bin), args = { 'mcp', '--repo', repo } } },
  })
  vim.cmd('close')
  vim.api.nvim_set_current_buf(service)

  vim.cmd('checkhealth codegraph')
  local report = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
  check('checkhealth: binary found', report:find('binary: ' .. bin, 1, true) ~= nil, true)
  check('checkhealth: version', report:find('version: codegraph ', 1, true) ~= nil, true)
  check('checkhealth: server attached', report:find('server attached: client ' .. client.id .. ', root ' .. repo, 1, true) ~= nil, true)
  check('checkhealth: no error', report:find('ERROR', 1, true), nil)
  vim.cmd('close')
  vim.api.nvim_set_current_buf(service)

  note = next_note(':Codegraph restart')
  vim.cmd('Codegraph restart')
  check(':Codegraph restart', note(), 'codegraph: restarted')
  wait('a new client', function()
    local now = codegraph_client(service)
    return now ~= nil and now.id ~= client.id
  end)
  local restarted = codegraph_client(service)
  wait('the index after the restart', function()
    local answer = status(restarted)
    return answer and answer.indexing == 0 and answer.roots[1] and answer.roots[1].files == 12
  end)
  check('restarted server attached to both buffers', vim.tbl_count(restarted.attached_buffers), 2)
end

local ok, error_message = xpcall(main, debug.traceback)
if not ok then
  table.insert(failures, error_message)
end
if #failures > 0 then
  io.stderr:write(table.concat(failures, '\n') .. '\n')
  vim.cmd('cquit 1')
end
io.stdout:write('all checks passed (' .. method .. ')\n')
vim.cmd('qall!')
