--- `:checkhealth codegraph`: Neovim's version, the binary, its version, the attached server;
--- when the binary is missing, what there is to get one with.
local M = {}

--- The Rust toolchain codegraph builds with (`rust-version` in its Cargo.toml).
local RUST_VERSION = '1.90'

--- Binaries of the codegraph VS Code extension's platform packages installed on this machine.
local function vscode_binaries()
  local found = {}
  for _, extensions in ipairs({ '~/.vscode/extensions', '~/.vscode-server/extensions', '~/.vscode-oss/extensions' }) do
    for _, binary in ipairs(vim.fn.glob(extensions .. '/codegraph.codegraph-*/bin/codegraph', false, true)) do
      if vim.fn.executable(binary) == 1 then
        table.insert(found, binary)
      end
    end
  end
  return found
end

--- What can provide a binary: cargo, or a VS Code platform package.
local function report_missing_binary(health, binary)
  local advice = {
    "lazy.nvim: :Lazy build codegraph (the spec in the help's codegraph-lazy section builds it with cargo)",
    'from a clone of codegraph: cargo install --locked --path .',
    "or point the plugin at a binary: vim.lsp.config('codegraph', { cmd = { '/abs/path/codegraph', 'lsp', '--stdio' } })",
  }
  health.error('binary not found: ' .. binary, advice)
  if vim.fn.executable('cargo') == 1 then
    local version = vim.trim(vim.fn.system({ 'cargo', '--version' }))
    health.info(version .. ' is there to build it (codegraph needs Rust ' .. RUST_VERSION .. ' or later)')
  else
    health.warn('cargo not found: building codegraph needs Rust ' .. RUST_VERSION .. ' or later (rustup.rs)')
  end
  for _, bundled in ipairs(vscode_binaries()) do
    health.info('the VS Code extension has one: ' .. bundled)
  end
end

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
    report_missing_binary(health, binary)
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
