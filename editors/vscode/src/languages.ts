/** The VS Code language ids of every language codegraph parses (see the README). */
export const LANGUAGE_IDS: readonly string[] = [
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
  'csharp',
  'ruby',
  'php',
  'kotlin',
  'swift',
  'scala',
  'lua',
  'shellscript',
];

/** The document selector of the language client: files on disk of those languages. */
export function documentSelector(): { scheme: string; language: string }[] {
  return LANGUAGE_IDS.map((language) => ({ scheme: 'file', language }));
}
