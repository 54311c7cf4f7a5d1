-- The configuration `vim.lsp.enable('codegraph')` reads (Neovim 0.11+). Override any field with
-- `vim.lsp.config('codegraph', { cmd = { '/path/to/codegraph', 'lsp', '--stdio' } })`.
---@type vim.lsp.Config
return require('codegraph').config()
