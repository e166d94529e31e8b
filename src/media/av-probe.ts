// Duration (and, for video, display size) of audio and video files. Best effort: unreadable values are null.
import { parseBuffer } from "music-metadata";
import { readIsoBmffVideo } from "./iso-bmff.ts";

export interface AudioVideoProbe {
  /** Whole milliseconds. */
  duration: number | null;
  width: number | null;
  height: number | null;
}

const ISO_BMFF_VIDEO = new Set(["video/mp4", "video/x-m4v", "video/quicktime"]);

export async function probeAudioVideo(bytes: Uint8Array, mime: string): Promise<AudioVideoProbe> {
  const metadata = await parseBuffer(
    bytes,
    // music-metadata picks its parser by the bare type ("audio/ogg; codecs=opus" → "audio/ogg").
    { mimeType: mime.split(";")[0], size: bytes.byteLength },
    // `duration: true` scans files without a length header (e.g. VBR MP3 without Xing) instead of guessing.
    { duration: true, skipCovers: true },
  ).catch(() => null);

  const seconds = metadata?.format.duration;
  const duration =
    seconds !== undefined && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds * 1000) : null;

  if (!mime.startsWith("video/")) return { duration, width: null, height: null };
  if (ISO_BMFF_VIDEO.has(mime)) {
    const video = readIsoBmffVideo(bytes);
    // The movie header covers video-only files, whose duration music-metadata leaves unset.
    return { duration: video.duration ?? duration, width: video.width, height: video.height };
  }
  // Matroska/WebM: music-metadata reports the video track's pixel size.
  const video = metadata?.format.trackInfo.find((track) => track.video)?.video;
  return { duration, width: positiveOrNull(video?.pixelWidth), height: positiveOrNull(video?.pixelHeight) };
}

function positiveOrNull(value: number | undefined): number | null {
  return value !== undefined && Number.isInteger(value) && value > 0 ? value : null;
}
