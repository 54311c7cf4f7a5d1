--- codegraph for Neovim: starts `codegraph lsp` (a language server over a live code graph that
--- also serves MCP to AI assistants) and offers the `:Codegraph` command.
---
--- Neovim 0.11+: `vim.lsp.enable('codegraph')` (the config is `lsp/codegraph.lua`), or
--- `require('codegraph').setup()`, which does the same. Neovim 0.10: `setup()` starts the server
--- with `vim.lsp.start` on FileType, in the root found by `root_markers`.
local M = {}

--- Every filetype whose language codegraph parses (see the README's language list).
M.filetypes = {
  'python',
  'javascript',
  'javascriptreact',
  'typescript',
  'typescriptreact',
  'rust',
  'go',
  'java',
  'c',
  'cpp',
  'cs',
  'ruby',
  'php',
  'kotlin',
  'swift',
  'scala',
  'lua',
  'sh',
  'bash',
}

--- Files or directories marking the root of a repository.
M.root_markers = { '.git', '.hg', '.jj', '.codegraph' }

--- The options of the last `setup()`.
M.options = {}

--- The LSP client configuration, with `overrides` merged in.
---@param overrides table|nil
---@return table
function M.config(overrides)
  return vim.tbl_deep_extend('force', {
    cmd = { 'codegraph', 'lsp', '--stdio' },
    filetypes = M.filetypes,
    root_markers = M.root_markers,
  }, overrides or {})
end

--- The repository root of a buffer: the nearest directory holding a root marker, else the
--- buffer's directory.
---@param bufnr integer
---@param markers string[]
---@return string|nil
function M.root_dir(bufnr, markers)
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == '' then
    return nil
  end
  return vim.fs.root(bufnr, markers) or vim.fs.dirname(name)
end

--- Starts (or reuses) the server for one buffer with `vim.lsp.start`: the 0.10 path.
---@param bufnr integer
---@param config table
---@return integer|nil client id
function M.start(bufnr, config)
  local root = M.root_dir(bufnr, config.root_markers)
  if not root then
    return nil
  end
  local start_config = vim.tbl_extend('force', config, { name = 'codegraph', root_dir = root })
  start_config.filetypes = nil
  start_config.root_markers = nil
  start_config.method = nil
  return vim.lsp.start(start_config, { bufnr = bufnr })
end

--- Sets codegraph up. `opts` are LSP client config fields (`cmd`, `filetypes`, `root_markers`,
--- `settings`, ...) plus `method`: 'enable' (`vim.lsp.config` + `vim.lsp.enable`, the default on
--- 0.11+) or 'start' (a FileType autocommand calling `vim.lsp.start`, the only way on 0.10).
---@param opts table|nil
function M.setup(opts)
  opts = opts or {}
  local method = opts.method or (vim.lsp.enable and 'enable' or 'start')
  local config = M.config(opts)
  config.method = nil
  M.options = config
  if method == 'enable' then
    vim.lsp.config('codegraph', config)
    vim.lsp.enable('codegraph')
    return
  end
  local group = vim.api.nvim_create_augroup('codegraph', { clear = true })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = config.filetypes,
    callback = function(event)
      M.start(event.buf, config)
    end,
  })
  -- Buffers already open when setup() runs.
  for _, bufnr in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(bufnr) and vim.tbl_contains(config.filetypes, vim.bo[bufnr].filetype) then
      M.start(bufnr, config)
    end
  end
end

--- The running codegraph clients, those of the current buffer first.
---@return vim.lsp.Client[]
function M.clients()
  local clients = vim.lsp.get_clients({ name = 'codegraph', bufnr = 0 })
  if #clients == 0 then
    clients = vim.lsp.get_clients({ name = 'codegraph' })
  end
  return clients
end

--- `client:request` on 0.11+, `client.request` on 0.10.
local function request(client, method, params, handler)
  if vim.fn.has('nvim-0.11') == 1 then
    return client:request(method, params, handler)
  end
  return client.request(method, params, handler)
end

--- Sends a request to the first codegraph client and calls `on_result(err, result)`.
---@return boolean whether a client was there to ask
function M.request(method, params, on_result)
  local client = M.clients()[1]
  if not client then
    return false
  end
  request(client, method, params, function(err, result)
    on_result(err, result)
  end)
  return true
end

--- The binary: the running client's command, else the configured one, else `codegraph`.
---@return string
function M.binary()
  local client = M.clients()[1]
  local cmd = client and client.config.cmd
  if type(cmd) == 'table' and cmd[1] then
    return cmd[1]
  end
  local configured = M.options.cmd or (vim.lsp.config and vim.lsp.config.codegraph and vim.lsp.config.codegraph.cmd)
  if type(configured) == 'table' and configured[1] then
    return configured[1]
  end
  return 'codegraph'
end

local function notify(message, level)
  vim.notify('codegraph: ' .. message, level or vim.log.levels.INFO)
end

--- One line per workspace folder from a `codegraph/status` answer.
---@param status table
---@return string
function M.format_status(status)
  local lines = {}
  if status.indexing and status.indexing > 0 then
    table.insert(lines, string.format('indexing (%d run(s) in flight)', status.indexing))
  end
  for _, root in ipairs(status.roots or {}) do
    table.insert(
      lines,
      string.format('%s: %d files, %d entities (revision %d)', root.root, root.files, root.entities or 0, root.revision)
    )
  end
  if #lines == 0 then
    return 'no workspace folder'
  end
  return table.concat(lines, '\n')
end

local subcommands = {}

function subcommands.status()
  local asked = M.request('codegraph/status', vim.NIL, function(err, result)
    if err then
      return notify('status failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
    end
    notify(M.format_status(result))
  end)
  if not asked then
    notify('no codegraph server attached (see :checkhealth codegraph)', vim.log.levels.WARN)
  end
end

function subcommands.reindex()
  local asked = M.request(
    'workspace/executeCommand',
    { command = 'codegraph.reindex', arguments = {} },
    function(err, result)
      if err then
        return notify('reindex failed: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      end
      notify('reindexed\n' .. table.concat(result or {}, '\n'))
    end
  )
  if not asked then
    notify('no codegraph server attached (see :checkhealth codegraph)', vim.log.levels.WARN)
  end
end

function subcommands.restart()
  local clients = vim.lsp.get_clients({ name = 'codegraph' })
  if #clients == 0 then
    return notify('no codegraph server to restart', vim.log.levels.WARN)
  end
  for _, client in ipairs(clients) do
    local buffers = vim.tbl_keys(client.attached_buffers)
    local config = client.config
    if vim.fn.has('nvim-0.11') == 1 then
      client:stop()
    else
      client.stop()
    end
    local timer = vim.uv.new_timer()
    timer:start(100, 100, vim.schedule_wrap(function()
      local stopped
      if vim.fn.has('nvim-0.11') == 1 then
        stopped = client:is_stopped()
      else
        stopped = client.is_stopped()
      end
      if not stopped then
        return
      end
      timer:stop()
      timer:close()
      for _, bufnr in ipairs(buffers) do
        if vim.api.nvim_buf_is_valid(bufnr) then
          vim.lsp.start(config, { bufnr = bufnr })
        end
      end
      notify('restarted')
    end))
  end
end

--- `:Codegraph mcp-config [client]`: the MCP configuration for AI clients, in a scratch buffer.
function subcommands.mcp_config(client_name)
  local root = (M.clients()[1] and M.clients()[1].root_dir) or M.root_dir(0, M.root_markers) or vim.fn.getcwd()
  local command = { M.binary(), 'mcp-config', '--repo', root }
  if client_name and client_name ~= '' then
    vim.list_extend(command, { '--client', client_name })
  end
  local ok, result = pcall(function()
    return vim.system(command, { text = true }):wait()
  end)
  if not ok or result.code ~= 0 then
    local reason = ok and result.stderr or tostring(result)
    return notify('`' .. table.concat(command, ' ') .. '` failed: ' .. vim.trim(reason), vim.log.levels.ERROR)
  end
  vim.cmd('new')
  local bufnr = vim.api.nvim_get_current_buf()
  vim.bo[bufnr].buftype = 'nofile'
  vim.bo[bufnr].bufhidden = 'wipe'
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, vim.split(vim.trim(result.stdout), '\n'))
  if client_name and client_name ~= '' then
    vim.bo[bufnr].filetype = 'json'
    -- With a client, stdout is the file's content and stderr says where it goes.
    notify(vim.trim(result.stderr))
  end
  return bufnr
end

M.subcommands = { 'status', 'reindex', 'restart', 'mcp-config' }
M.mcp_clients = { 'claude-code', 'claude-desktop', 'cursor', 'vscode' }

--- Runs `:Codegraph {subcommand} [argument]`.
function M.command(arguments)
  local name, argument = arguments[1], arguments[2]
  if name == 'status' then
    subcommands.status()
  elseif name == 'reindex' then
    subcommands.reindex()
  elseif name == 'restart' then
    subcommands.restart()
  elseif name == 'mcp-config' then
    subcommands.mcp_config(argument)
  else
    notify('usage: :Codegraph {' .. table.concat(M.subcommands, '|') .. '}', vim.log.levels.ERROR)
  end
end

--- Completion for `:Codegraph`.
function M.complete(arg_lead, line)
  local words = vim.split(line, '%s+', { trimempty = true })
  local candidates = M.subcommands
  if (#words == 2 and line:match('%s$')) or #words == 3 then
    candidates = words[2] == 'mcp-config' and M.mcp_clients or {}
  elseif #words > 2 then
    candidates = {}
  end
  return vim.tbl_filter(function(candidate)
    return vim.startswith(candidate, arg_lead)
  end, candidates)
end

return M
