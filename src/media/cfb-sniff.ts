// Tells legacy Office files apart inside the Compound File Binary container. file-type only says
// "application/x-cfb", which also covers MSI installers and Outlook messages; the root storage's stream
// names are what identify a Word, Excel or PowerPoint file (MS-CFB §2.6, MS-DOC/XLS/PPT).

export interface CfbDocument {
  mime: "application/msword" | "application/vnd.ms-excel" | "application/vnd.ms-powerpoint";
  /** A VBA project sits at the root (Word: "Macros", Excel: "_VBA_PROJECT_CUR"). */
  hasMacros: boolean;
}

const SIGNATURE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const END_OF_CHAIN = 0xfffffffe;
const NO_STREAM = 0xffffffff;
const DIR_ENTRY_SIZE = 128;
const HEADER_DIFAT_ENTRIES = 109;

/** Identifies a .doc/.xls/.ppt from a CFB file's root entries; null for any other or an unreadable file. */
export function sniffCfbDocument(bytes: Uint8Array): CfbDocument | null {
  try {
    const names = rootEntryNames(bytes);
    if (!names) return null;
    // An embedded workbook lives in a sub-storage, so only the root's names decide the format.
    const mime = names.has("WordDocument")
      ? "application/msword"
      : names.has("PowerPoint Document")
        ? "application/vnd.ms-powerpoint"
        : names.has("Workbook") || names.has("Book")
          ? "application/vnd.ms-excel"
          : null;
    if (!mime) return null;
    return { mime, hasMacros: names.has("Macros") || names.has("_VBA_PROJECT_CUR") };
  } catch {
    // Truncated or self-contradicting structures: not a file we can vouch for.
    return null;
  }
}

function rootEntryNames(bytes: Uint8Array): Set<string> | null {
  if (bytes.length < 512 || SIGNATURE.some((b, i) => bytes[i] !== b)) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const sectorShift = view.getUint16(0x1e, true);
  if (sectorShift !== 9 && sectorShift !== 12) return null;
  const sectorSize = 1 << sectorShift;
  const sectorCount = Math.floor(bytes.length / sectorSize);
  const entriesPerFatSector = sectorSize / 4;

  const sectorOffset = (sector: number) => (sector + 1) * sectorSize;
  // The header lists the first 109 FAT sectors, which covers files far larger than an upload may be
  // (≥ 7 MiB with 512-byte sectors); chains reaching beyond them are treated as unreadable.
  const nextSector = (sector: number): number => {
    const fatIndex = Math.floor(sector / entriesPerFatSector);
    if (fatIndex >= HEADER_DIFAT_ENTRIES) throw new RangeError("FAT beyond header DIFAT");
    const fatSector = view.getUint32(0x4c + fatIndex * 4, true);
    return view.getUint32(sectorOffset(fatSector) + (sector % entriesPerFatSector) * 4, true);
  };

  // Read the directory chain into a flat list of entries.
  const entries: { name: string; left: number; right: number; child: number }[] = [];
  let sector = view.getUint32(0x30, true);
  for (let hops = 0; sector !== END_OF_CHAIN; hops++) {
    if (hops > sectorCount || sector >= sectorCount) return null; // a loop or a pointer past the end
    const base = sectorOffset(sector);
    for (let offset = base; offset + DIR_ENTRY_SIZE <= base + sectorSize; offset += DIR_ENTRY_SIZE) {
      const nameBytes = Math.min(view.getUint16(offset + 0x40, true), 64);
      const name = new TextDecoder("utf-16le").decode(
        bytes.subarray(offset, offset + Math.max(nameBytes - 2, 0)),
      );
      entries.push({
        name,
        left: view.getUint32(offset + 0x44, true),
        right: view.getUint32(offset + 0x48, true),
        child: view.getUint32(offset + 0x4c, true),
      });
    }
    sector = nextSector(sector);
  }

  // Entry 0 is the root storage; its children form a tree linked through left/right siblings.
  const root = entries[0];
  if (!root) return null;
  const names = new Set<string>();
  const pending = [root.child];
  const seen = new Set<number>();
  while (pending.length > 0) {
    const id = pending.pop()!;
    if (id === NO_STREAM || seen.has(id)) continue;
    seen.add(id);
    const entry = entries[id];
    if (!entry) return null;
    names.add(entry.name);
    pending.push(entry.left, entry.right);
  }
  return names;
}
