/**
 * What a binary file is, in words a user recognizes ("PNG image", "ZIP archive"): from its first
 * bytes where they carry a known signature, else from its name's extension. Used where Strata says
 * why it did not attach a file. Pure; reads at most the first 16 bytes it is given.
 */

/** Leading bytes of common binary formats and what they are. */
const SIGNATURES: readonly { bytes: readonly number[]; kind: string }[] = [
  { bytes: [0x89, 0x50, 0x4e, 0x47], kind: 'PNG image' },
  { bytes: [0xff, 0xd8, 0xff], kind: 'JPEG image' },
  { bytes: [0x47, 0x49, 0x46, 0x38], kind: 'GIF image' },
  { bytes: [0x25, 0x50, 0x44, 0x46], kind: 'PDF document' },
  { bytes: [0x50, 0x4b, 0x03, 0x04], kind: 'ZIP archive' },
  { bytes: [0x1f, 0x8b], kind: 'gzip archive' },
  { bytes: [0x7f, 0x45, 0x4c, 0x46], kind: 'ELF executable' },
  { bytes: [0x00, 0x61, 0x73, 0x6d], kind: 'WebAssembly module' },
  { bytes: [0x4d, 0x5a], kind: 'Windows executable' },
  { bytes: [0x53, 0x51, 0x4c, 0x69, 0x74, 0x65], kind: 'SQLite database' },
  { bytes: [0x00, 0x00, 0x01, 0x00], kind: 'icon' },
];

/** Extensions of common binary formats (lower case, without the dot). */
const EXTENSIONS: Readonly<Record<string, string>> = {
  png: 'PNG image',
  jpg: 'JPEG image',
  jpeg: 'JPEG image',
  gif: 'GIF image',
  webp: 'WebP image',
  bmp: 'BMP image',
  ico: 'icon',
  tif: 'TIFF image',
  tiff: 'TIFF image',
  pdf: 'PDF document',
  zip: 'ZIP archive',
  gz: 'gzip archive',
  tgz: 'gzip archive',
  tar: 'tar archive',
  '7z': '7-Zip archive',
  jar: 'Java archive',
  vsix: 'VS Code extension package',
  exe: 'Windows executable',
  dll: 'Windows library',
  so: 'shared library',
  dylib: 'shared library',
  wasm: 'WebAssembly module',
  class: 'Java class file',
  pyc: 'Python bytecode',
  o: 'object file',
  a: 'static library',
  sqlite: 'SQLite database',
  db: 'database file',
  mp3: 'MP3 audio',
  wav: 'WAV audio',
  ogg: 'Ogg media',
  mp4: 'MP4 video',
  mov: 'QuickTime video',
  woff: 'web font',
  woff2: 'web font',
  ttf: 'TrueType font',
  otf: 'OpenType font',
  docx: 'Word document',
  xlsx: 'Excel workbook',
  pptx: 'PowerPoint presentation',
};

/** The extension of the last segment of a '/' or '\' path, lower case; '' when it has none. */
function extensionOf(path: string): string {
  const name = path.slice(Math.max(path.lastIndexOf('/'), path.lastIndexOf('\\')) + 1);
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/** The format a binary file's name says it is ("PNG image"), or undefined for a name no binary format is known by. */
export function binaryKindOfName(path: string): string | undefined {
  const ext = extensionOf(path);
  return Object.prototype.hasOwnProperty.call(EXTENSIONS, ext) ? EXTENSIONS[ext] : undefined;
}

/** What a binary file is: by its leading bytes when they are known, else by its name; undefined when neither says. */
export function binaryKind(path: string, head?: Uint8Array): string | undefined {
  if (head) {
    for (const s of SIGNATURES) {
      if (head.length >= s.bytes.length && s.bytes.every((b, i) => head[i] === b)) return s.kind;
    }
  }
  return binaryKindOfName(path);
}
