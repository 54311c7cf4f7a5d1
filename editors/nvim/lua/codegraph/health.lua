--- `:checkhealth codegraph`: Neovim's version, the binary, its version, the attached server.
local M = {}

function M.check()
  local health = vim.health
  local codegraph = require('codegraph')
  health.start('codegraph')
  if vim.fn.has('nvim-0.10') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim 0.10 or later is required')
  end

  local binary = codegraph.binary()
  if vim.fn.executable(binary) == 1 then
    health.ok('binary: ' .. vim.fn.exepath(binary))
    local version = vim.trim(vim.fn.system({ binary, '--version' }))
    if vim.v.shell_error == 0 then
      health.ok('version: ' .. version)
    else
      health.error('`' .. binary .. ' --version` failed: ' .. version)
    end
  else
    health.error(
      'binary not found: ' .. binary,
      { 'Install it from a clone of codegraph: cargo install --path .', 'or set cmd in vim.lsp.config("codegraph", ...)' }
    )
  end

  local clients = vim.lsp.get_clients({ name = 'codegraph' })
  if #clients == 0 then
    health.warn('no codegraph server running', {
      "Neovim 0.11+: vim.lsp.enable('codegraph'); 0.10: require('codegraph').setup()",
      'open a file of a language codegraph parses inside a repository',
    })
  end
  for _, client in ipairs(clients) do
    local buffers = vim.tbl_count(client.attached_buffers)
    health.ok(string.format('server attached: client %d, root %s, %d buffer(s)', client.id, client.root_dir or '?', buffers))
  end
end

return M
