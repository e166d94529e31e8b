// Small but real files of each kind, built in memory so the tests need no binary fixtures.
import { crc32, deflateSync } from "node:zlib";
import sharp from "sharp";

/** A width×height RGB gradient encoded by sharp. */
export async function makeImage(
  format: "png" | "jpeg" | "webp" | "gif",
  width = 64,
  height = 48,
): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      pixels[i] = Math.round((x / (width - 1)) * 255);
      pixels[i + 1] = Math.round((y / (height - 1)) * 255);
      pixels[i + 2] = 128;
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } })
    .toFormat(format)
    .toBuffer();
}

/**
 * A PNG whose header claims a width×height canvas while its pixel data is a few bytes: the shape of a
 * decompression bomb, without the payload.
 */
export function makeHugeCanvasPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const typed = Buffer.concat([Buffer.from(type, "latin1"), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("IDAT", deflateSync(Buffer.alloc(1024))),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

/** 16-bit mono PCM WAV holding `seconds` of a 440 Hz tone. */
export function makeWav(seconds: number, sampleRate = 8000): Buffer {
  const samples = Math.round(seconds * sampleRate);
  const dataBytes = samples * 2;
  const wav = Buffer.alloc(44 + dataBytes);
  wav.write("RIFF", 0, "ascii");
  wav.writeUInt32LE(36 + dataBytes, 4);
  wav.write("WAVE", 8, "ascii");
  wav.write("fmt ", 12, "ascii");
  wav.writeUInt32LE(16, 16); // fmt chunk size
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // channels
  wav.writeUInt32LE(sampleRate, 24);
  wav.writeUInt32LE(sampleRate * 2, 28); // byte rate
  wav.writeUInt16LE(2, 32); // block align
  wav.writeUInt16LE(16, 34); // bits per sample
  wav.write("data", 36, "ascii");
  wav.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples; i++) {
    wav.writeInt16LE(Math.round(Math.sin((2 * Math.PI * 440 * i) / sampleRate) * 8000), 44 + i * 2);
  }
  return wav;
}

/** A one-page PDF with a correct cross-reference table. */
export function makePdf(): Buffer {
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] >>",
  ];
  let pdf = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(pdf));
    pdf += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(pdf);
  pdf += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) pdf += `${String(offset).padStart(10, "0")} 00000 n \n`;
  pdf += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(pdf, "latin1");
}

/** The start of a 64-bit Linux executable. */
export function makeElf(): Buffer {
  const elf = Buffer.alloc(128);
  Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0]).copy(elf);
  elf.writeUInt16LE(2, 16); // ET_EXEC
  elf.writeUInt16LE(0x3e, 18); // x86-64
  return elf;
}

/** The start of a Windows executable: DOS stub pointing at a PE header. */
export function makePe(): Buffer {
  const exe = Buffer.alloc(256);
  exe.write("MZ", 0, "ascii");
  exe.writeUInt32LE(0x80, 0x3c);
  exe.write("PE\0\0", 0x80, "latin1");
  exe.writeUInt16LE(0x14c, 0x84); // i386
  return exe;
}

/** Deterministic pseudo-random bytes (xorshift32), so a run never happens to hit a magic number. */
export function pseudoRandomBytes(length: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.alloc(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    out[i] = state & 0xff;
  }
  return out;
}

export interface CfbEntry {
  name: string;
  kind: "stream" | "storage";
}

/** A Compound File Binary file whose root holds `entries` (empty streams and storages). */
export function makeCfb(entries: CfbEntry[]): Buffer {
  const sector = 512;
  const all = [
    { name: "Root Entry", type: 5 },
    ...entries.map((e) => ({ name: e.name, type: e.kind === "stream" ? 2 : 1 })),
  ];
  const dirSectors = Math.ceil(all.length / 4);
  const file = Buffer.alloc(sector * (2 + dirSectors));
  Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]).copy(file);
  file.writeUInt16LE(0x3e, 0x18);
  file.writeUInt16LE(3, 0x1a);
  file.writeUInt16LE(0xfffe, 0x1c);
  file.writeUInt16LE(9, 0x1e);
  file.writeUInt16LE(6, 0x20);
  file.writeUInt32LE(1, 0x2c); // one FAT sector
  file.writeUInt32LE(1, 0x30); // directory starts at sector 1
  file.writeUInt32LE(0x1000, 0x38);
  file.writeUInt32LE(0xfffffffe, 0x3c);
  file.writeUInt32LE(0xfffffffe, 0x44);
  for (let i = 0; i < 109; i++) file.writeUInt32LE(i === 0 ? 0 : 0xffffffff, 0x4c + i * 4);

  // FAT in sector 0: itself, then the directory chain.
  const fat = sector;
  for (let i = 0; i < sector / 4; i++) file.writeUInt32LE(0xffffffff, fat + i * 4);
  file.writeUInt32LE(0xfffffffd, fat);
  for (let d = 0; d < dirSectors; d++)
    file.writeUInt32LE(d === dirSectors - 1 ? 0xfffffffe : 2 + d, fat + (1 + d) * 4);

  // Directory: the root's children chained through right siblings (a degenerate but valid tree shape).
  all.forEach((entry, id) => {
    const at = sector * 2 + id * 128;
    file.write(`${entry.name}\0`, at, "utf16le");
    file.writeUInt16LE((entry.name.length + 1) * 2, at + 0x40);
    file.writeUInt8(entry.type, at + 0x42);
    file.writeUInt8(1, at + 0x43);
    file.writeUInt32LE(0xffffffff, at + 0x44);
    file.writeUInt32LE(id > 0 && id < all.length - 1 ? id + 1 : 0xffffffff, at + 0x48);
    file.writeUInt32LE(id === 0 && all.length > 1 ? 1 : 0xffffffff, at + 0x4c);
    file.writeUInt32LE(0xfffffffe, at + 0x74);
  });
  // Unused directory slots are empty entries with no siblings.
  for (let id = all.length; id < dirSectors * 4; id++) {
    const at = sector * 2 + id * 128;
    for (const field of [0x44, 0x48, 0x4c]) file.writeUInt32LE(0xffffffff, at + field);
  }
  return file;
}

/** An uncompressed ("stored") ZIP archive. */
export function makeZip(entries: { name: string; data: string | Buffer }[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const data = Buffer.isBuffer(entry.data) ? entry.data : Buffer.from(entry.data, "utf8");
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, data);
    centrals.push(central, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** A Word document skeleton; `macros` makes it a macro-enabled .docm. */
export function makeDocx({ macros = false } = {}): Buffer {
  const main = macros
    ? "application/vnd.ms-word.document.macroEnabled.main+xml"
    : "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml";
  return makeZip([
    {
      name: "[Content_Types].xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="${main}"/></Types>`,
    },
    {
      name: "word/document.xml",
      data: `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Hi</w:t></w:r></w:p></w:body></w:document>`,
    },
  ]);
}

/** An OpenDocument text skeleton (the "mimetype" entry first, uncompressed, as the format requires). */
export function makeOdt(): Buffer {
  return makeZip([
    { name: "mimetype", data: "application/vnd.oasis.opendocument.text" },
    { name: "content.xml", data: `<?xml version="1.0" encoding="UTF-8"?><office:document-content/>` },
  ]);
}

/**
 * An MP4 skeleton: ftyp and a moov with one video track (no samples). Enough for the track header's
 * size and the movie header's duration; `rotate90` sets the portrait display matrix phones write.
 */
export function makeMp4({
  width,
  height,
  durationMs,
  rotate90 = false,
}: {
  width: number;
  height: number;
  durationMs: number;
  rotate90?: boolean;
}): Buffer {
  const box = (type: string, ...parts: Buffer[]) => {
    const payload = Buffer.concat(parts);
    const header = Buffer.alloc(8);
    header.writeUInt32BE(8 + payload.length, 0);
    header.write(type, 4, "latin1");
    return Buffer.concat([header, payload]);
  };
  const matrix = Buffer.alloc(36);
  if (rotate90) {
    matrix.writeInt32BE(0x10000, 4); // b
    matrix.writeInt32BE(-0x10000, 12); // c
  } else {
    matrix.writeInt32BE(0x10000, 0); // a
    matrix.writeInt32BE(0x10000, 16); // d
  }
  matrix.writeInt32BE(0x40000000, 32); // w

  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12); // timescale: ms
  mvhd.writeUInt32BE(durationMs, 16);
  mvhd.writeUInt32BE(0x10000, 20); // rate 1.0
  mvhd.writeUInt16BE(0x100, 24); // volume 1.0
  matrix.copy(mvhd, 36);
  mvhd.writeUInt32BE(2, 96); // next track id

  const tkhd = Buffer.alloc(84);
  tkhd.writeUInt32BE(0x000003, 0); // version 0, flags: enabled | in movie
  tkhd.writeUInt32BE(1, 12); // track id
  tkhd.writeUInt32BE(durationMs, 20);
  matrix.copy(tkhd, 40);
  tkhd.writeUInt32BE(width * 0x10000, 76);
  tkhd.writeUInt32BE(height * 0x10000, 80);

  const mdhd = Buffer.alloc(24);
  mdhd.writeUInt32BE(1000, 12);
  mdhd.writeUInt32BE(durationMs, 16);
  mdhd.writeUInt16BE(0x55c4, 20); // language "und"

  const hdlr = Buffer.concat([
    Buffer.alloc(8),
    Buffer.from("vide", "latin1"),
    Buffer.alloc(12),
    Buffer.from("VideoHandler\0"),
  ]);

  const ftyp = box(
    "ftyp",
    Buffer.from("isom", "latin1"),
    Buffer.from([0, 0, 2, 0]),
    Buffer.from("isomiso2mp41", "latin1"),
  );
  const moov = box(
    "moov",
    box("mvhd", mvhd),
    box("trak", box("tkhd", tkhd), box("mdia", box("mdhd", mdhd), box("hdlr", hdlr))),
  );
  return Buffer.concat([ftyp, moov]);
}
