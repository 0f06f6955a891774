-- A Neovim user session against `miogen serve`, run headless by tests/nvim/test_neovim_client.py.
--
-- Open a module, attach the server, type an edit, save, wait for the streamed coverage and the
-- work-done progress to end, ask for code actions on the class, apply the Insert action with
-- Neovim's own apply_workspace_edit (resolving it first when the server defers the edit), write
-- every buffer with :wall and report what happened as JSON. Environment: MIOGEN_WS (workspace),
-- MIOGEN_FILE (module, relative), MIOGEN_UNIT, MIOGEN_PYTHON, MIOGEN_OUT (JSON report),
-- MIOGEN_WAIT_MS (per step), MIOGEN_EDIT ("1": type an edit inside the unit before saving),
-- MIOGEN_MODE (the generateOnSave setting; "off": only check that the save generates nothing).
local ws = os.getenv('MIOGEN_WS')
local file = ws .. '/' .. os.getenv('MIOGEN_FILE')
local unit = os.getenv('MIOGEN_UNIT')
local out = os.getenv('MIOGEN_OUT')
local wait_ms = tonumber(os.getenv('MIOGEN_WAIT_MS') or '120000')
local mode = os.getenv('MIOGEN_MODE') or 'untested'
local report = {
  errors = {}, coverage = {}, progress = {}, actions = {}, applied = false, resolved = false,
  written = false, log = {}, lenses = {}, encoding = nil,
  version = vim.version and tostring(vim.version()) or '?',
}

local function note_error(message)
  table.insert(report.errors, message)
end

local function finish()
  local f = assert(io.open(out, 'w'))
  f:write(vim.json.encode(report))
  f:close()
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  vim.cmd.edit(vim.fn.fnameescape(file))
  local bufnr = vim.api.nvim_get_current_buf()
  local handlers = {
    ['miogen/coverage'] = function(_, params)
      table.insert(report.coverage, params)
    end,
    ['$/progress'] = function(e, params, ctx, config)
      local value = params.value or {}
      table.insert(report.progress, { token = params.token, kind = value.kind, title = value.title })
      return vim.lsp.handlers['$/progress'](e, params, ctx, config)
    end,
    ['window/logMessage'] = function(_, params)
      table.insert(report.log, params.message)
    end,
  }
  local client_id = vim.lsp.start({
    name = 'miogen',
    cmd = { os.getenv('MIOGEN_PYTHON'), '-m', 'miogen', 'serve' },
    root_dir = ws,
    workspace_folders = { { uri = vim.uri_from_fname(ws), name = 'ws' } },
    handlers = handlers,
    settings = { miogen = { budgetSeconds = 2, onSave = true, generateOnSave = mode } },
  }, { bufnr = bufnr })
  local client = vim.lsp.get_client_by_id(client_id)
  if not vim.wait(wait_ms, function() return client.initialized end, 50) then
    error('the server did not initialize')
  end
  report.encoding = client.offset_encoding

  if os.getenv('MIOGEN_EDIT') == '1' then
    -- Type inside the unit: the marker line's string changes (a code change, not a comment).
    local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    for i, line in ipairs(lines) do
      if line:find('MIOGEN%-EDIT') then
        local edited = line:gsub('MIOGEN%-EDIT', 'MIOGEN-EDITED')
        vim.api.nvim_buf_set_lines(bufnr, i - 1, i, false, { edited })
        break
      end
    end
  end
  vim.cmd('write')

  if mode == 'off' then
    local function said_off()
      for _, message in ipairs(report.log) do
        if message:find('generateOnSave is off', 1, true) then return true end
      end
      return false
    end
    if not vim.wait(wait_ms, said_off, 100) then error('the save was not handled') end
    vim.wait(3000, function() return false end, 100) -- a job, if any, would show by now
    return
  end

  -- The job ends when its progress ends and the final coverage (state "done") has arrived.
  local function final_coverage()
    for _, params in ipairs(report.coverage) do
      for _, u in ipairs(params.units or {}) do
        if u.name == unit and u.state == 'done' then return true end
      end
    end
    return false
  end
  if not vim.wait(wait_ms, final_coverage, 100) then
    error('no final miogen/coverage for ' .. unit)
  end
  report.diagnostics = #vim.diagnostic.get(bufnr)
  local lenses = client:request_sync('textDocument/codeLens',
    { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, wait_ms, bufnr)
  for _, lens in ipairs((lenses and lenses.result) or {}) do
    table.insert(report.lenses, lens.command and lens.command.title or '')
  end

  local line = nil
  for i, text in ipairs(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)) do
    if text:match('^class ' .. unit .. '[%(:]') or text:match('^def ' .. unit .. '%(') then
      line = i - 1
      break
    end
  end
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(bufnr) },
    range = { start = { line = line, character = 0 }, ['end'] = { line = line, character = 0 } },
    context = { diagnostics = {} },
  }
  local answer = client:request_sync('textDocument/codeAction', params, wait_ms, bufnr)
  if not answer or answer.err then
    error('codeAction failed: ' .. vim.inspect(answer and answer.err))
  end
  local chosen = nil
  for _, action in ipairs(answer.result or {}) do
    table.insert(report.actions, { title = action.title, kind = action.kind })
    if action.title:match('^Insert') and chosen == nil then chosen = action end
  end
  if chosen == nil then error('no Insert action') end
  if chosen.edit == nil and chosen.data ~= nil then
    local resolved = client:request_sync('codeAction/resolve', chosen, wait_ms, bufnr)
    if not resolved or resolved.err then
      error('codeAction/resolve failed: ' .. vim.inspect(resolved and resolved.err))
    end
    chosen = resolved.result
    report.resolved = true
  end
  if chosen.edit == nil then error('the Insert action has no edit') end
  report.edit_kinds = {}
  for _, change in ipairs(chosen.edit.documentChanges or {}) do
    table.insert(report.edit_kinds, change.kind or 'edit')
  end
  vim.lsp.util.apply_workspace_edit(chosen.edit, client.offset_encoding)
  report.applied = true
  local wrote, werr = pcall(vim.cmd, 'wall')
  report.written = wrote
  if not wrote then note_error('wall: ' .. tostring(werr)) end
end)
if not ok then note_error(tostring(err)) end
finish()
