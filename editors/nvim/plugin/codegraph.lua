-- The `:Codegraph {status|reindex|restart|mcp-config [client]}` command. Starting the server is
-- left to `vim.lsp.enable('codegraph')` (0.11+) or `require('codegraph').setup()`.
if vim.g.loaded_codegraph then
  return
end
vim.g.loaded_codegraph = true

vim.api.nvim_create_user_command('Codegraph', function(command)
  require('codegraph').command(command.fargs)
end, {
  nargs = '+',
  desc = 'codegraph: status, reindex, restart, mcp-config [claude-code|claude-desktop|cursor|vscode]',
  complete = function(arg_lead, line)
    return require('codegraph').complete(arg_lead, line)
  end,
})
