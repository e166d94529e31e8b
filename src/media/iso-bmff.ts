// Reads what music-metadata does not report for MP4/QuickTime video: the display size, from the video
// track's header (moov → trak with mdia/hdlr = "vide" → tkhd), and the movie's duration (moov → mvhd;
// music-metadata only reports the duration of audio tracks, so a silent video would get none).

interface Box {
  type: string;
  /** Start of the payload (after the header). */
  start: number;
  end: number;
}

const MAX_DEPTH = 8;

export interface IsoBmffVideoInfo {
  /** Of the first video track, rotation applied. */
  width: number | null;
  height: number | null;
  /** Whole milliseconds. */
  duration: number | null;
}

/** Size and duration of an MP4/QuickTime file; each null when absent or unreadable. */
export function readIsoBmffVideo(bytes: Uint8Array): IsoBmffVideoInfo {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const moov = attempt(() => children(view, 0, bytes.length, 0).find((box) => box.type === "moov") ?? null);
  if (!moov) return { width: null, height: null, duration: null };
  // Read independently, so a damaged track header does not cost the duration, or the reverse.
  const size = attempt(() => videoTrackSize(view, moov));
  return {
    width: size?.width ?? null,
    height: size?.height ?? null,
    duration: attempt(() => movieDuration(view, moov)),
  };
}

/** Runs a reader, turning an out-of-bounds read (a box shorter than its fields) into null. */
function attempt<T>(read: () => T | null): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

function movieDuration(view: DataView, moov: Box): number | null {
  const mvhd = children(view, moov.start, moov.end, 1).find((box) => box.type === "mvhd");
  if (!mvhd) return null;
  const version = view.getUint8(mvhd.start);
  if (mvhd.start + (version === 1 ? 32 : 20) > mvhd.end) return null;
  const timescale = view.getUint32(mvhd.start + (version === 1 ? 20 : 12));
  const units = version === 1 ? Number(view.getBigUint64(mvhd.start + 24)) : view.getUint32(mvhd.start + 16);
  // Fragmented files leave the duration at 0 (or all ones for "unknown") in mvhd.
  if (timescale === 0 || units === 0 || units === 0xffffffff) return null;
  return Math.round((units / timescale) * 1000);
}

function videoTrackSize(view: DataView, moov: Box): { width: number; height: number } | null {
  for (const trak of children(view, moov.start, moov.end, 1).filter((box) => box.type === "trak")) {
    const trakChildren = children(view, trak.start, trak.end, 2);
    const mdia = trakChildren.find((box) => box.type === "mdia");
    const hdlr = mdia && children(view, mdia.start, mdia.end, 3).find((box) => box.type === "hdlr");
    // hdlr payload: version/flags (4), pre_defined (4), handler_type (4).
    if (!hdlr || hdlr.start + 12 > hdlr.end || fourCC(view, hdlr.start + 8) !== "vide") continue;
    const tkhd = trakChildren.find((box) => box.type === "tkhd");
    return tkhd ? trackSize(view, tkhd) : null;
  }
  return null;
}

function trackSize(view: DataView, tkhd: Box): { width: number; height: number } | null {
  // Version 1 widens the three time fields to 64 bits, moving everything after them by 12 bytes.
  const shift = view.getUint8(tkhd.start) === 1 ? 12 : 0;
  const matrix = tkhd.start + 40 + shift;
  const sizeAt = tkhd.start + 76 + shift;
  if (sizeAt + 8 > tkhd.end) return null;
  // 16.16 fixed point.
  const width = Math.round(view.getUint32(sizeAt) / 65_536);
  const height = Math.round(view.getUint32(sizeAt + 4) / 65_536);
  if (width === 0 || height === 0) return null;
  // Phones record portrait video as landscape frames plus a 90° matrix (a = d = 0); report what is shown.
  const a = view.getInt32(matrix);
  const d = view.getInt32(matrix + 16);
  return a === 0 && d === 0 ? { width: height, height: width } : { width, height };
}

function children(view: DataView, start: number, end: number, depth: number): Box[] {
  if (depth > MAX_DEPTH) return [];
  const boxes: Box[] = [];
  let offset = start;
  while (offset + 8 <= end) {
    let size = view.getUint32(offset);
    const type = fourCC(view, offset + 4);
    let header = 8;
    if (size === 1) {
      // 64-bit size follows; anything beyond 2^53 cannot be in memory anyway.
      size = Number(view.getBigUint64(offset + 8));
      header = 16;
    } else if (size === 0) {
      size = end - offset; // extends to the end of the enclosing box
    }
    if (size < header || offset + size > end) break;
    boxes.push({ type, start: offset + header, end: offset + size });
    offset += size;
  }
  return boxes;
}

function fourCC(view: DataView, offset: number): string {
  return String.fromCharCode(
    view.getUint8(offset),
    view.getUint8(offset + 1),
    view.getUint8(offset + 2),
    view.getUint8(offset + 3),
  );
}
