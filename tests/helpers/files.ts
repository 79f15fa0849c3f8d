// Small real files for upload tests, made here byte by byte: a PDF with a correct cross-reference
// table, a 1x1 PNG, an 8x8 baseline JPEG, a 1x1 lossless WebP; and the files that must be refused.
import { crc32, deflateSync } from 'node:zlib';

/** A one-page PDF saying `text`, with its xref offsets computed. */
export function pdfFile(text = 'Resume'): Buffer {
  const stream = `BT /F1 24 Tf 72 720 Td (${text}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(out.length);
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A 1x1 RGB PNG of the given colour. */
export function pngFile(rgb: [number, number, number] = [255, 0, 0]): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(1, 0); // width
  header.writeUInt32BE(1, 4); // height
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, truecolour, deflate, no filter method, no interlace
  const scanline = Buffer.from([0, ...rgb]); // filter type 0, then the pixel
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(scanline)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const segment = (marker: number, body: number[]) => [0xff, marker, (body.length + 2) >> 8, (body.length + 2) & 0xff, ...body];

/**
 * An 8x8 grey baseline JPEG: one block whose DC difference is 0 and whose AC part is an EOB, with
 * Huffman tables of one 1-bit code each ('0'), so the scan is the bits 0 0 padded with ones.
 */
export function jpegFile(): Buffer {
  return Buffer.from([
    0xff,
    0xd8, // SOI
    ...segment(0xe0, [0x4a, 0x46, 0x49, 0x46, 0, 1, 1, 0, 0, 1, 0, 1, 0, 0]), // APP0 JFIF 1.1
    ...segment(0xdb, [0, ...Array<number>(64).fill(1)]), // DQT: table 0, all ones
    ...segment(0xc0, [8, 0, 8, 0, 8, 1, 1, 0x11, 0]), // SOF0: 8 bits, 8x8, one component, table 0
    ...segment(0xc4, [0x00, 1, ...Array<number>(15).fill(0), 0x00]), // DHT DC 0: one code of length 1 -> category 0
    ...segment(0xc4, [0x10, 1, ...Array<number>(15).fill(0), 0x00]), // DHT AC 0: one code of length 1 -> EOB
    ...segment(0xda, [1, 1, 0x00, 0, 63, 0]), // SOS: component 1 with tables 0/0, full spectrum
    0x3f, // DC '0', EOB '0', padded with ones
    0xff,
    0xd9, // EOI
  ]);
}

/** The 8x8 JPEG with a comment segment (COM) holding `text` after its start marker. */
export function jpegWithComment(text: Buffer): Buffer {
  const jpeg = jpegFile();
  return Buffer.concat([jpeg.subarray(0, 2), Buffer.from(segment(0xfe, [...text])), jpeg.subarray(2)]);
}

/** A 1x1 lossless WebP (the VP8L image browsers' feature checks decode). */
export function webpFile(): Buffer {
  return Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
}

/** Plain text, whatever it is named. */
export const textFile = () => Buffer.from('Not a PDF at all, just words in a file named resume.pdf.\n');

/** Starts like a PDF (file-type says application/pdf), then is an HTML page with a script. */
export const pdfHtmlPolyglot = () =>
  Buffer.from('%PDF-1.4\n<html><body><script>fetch("/api/keys").then(r => r.text()).then(alert)</script></body></html>\n');

/** A valid PDF that ends with an HTML page: also refused (markup anywhere). */
export const pdfWithTrailingHtml = () => Buffer.concat([pdfFile(), Buffer.from('<!DOCTYPE html><html><script>alert(1)</script></html>\n')]);

/** `size` bytes that begin as a PDF (so only the size is wrong). */
export function oversizedFile(size: number): Buffer {
  const bytes = Buffer.alloc(size, 0x20);
  bytes.write('%PDF-1.4\n', 0, 'latin1');
  return bytes;
}

/** A multipart/form-data body holding `bytes` as the file field `field`. */
export function formWith(field: string, bytes: Uint8Array, filename = 'resume.pdf', type = 'application/pdf'): FormData {
  const form = new FormData();
  form.append(field, new Blob([new Uint8Array(bytes)], { type }), filename);
  return form;
}

/** The 1x1 PNG with a tEXt chunk `keyword`, NUL, `text` after its header. */
export function pngWithText(keyword: string, text: Buffer): Buffer {
  const png = pngFile();
  const afterHeader = 8 + 25; // the signature, then IHDR (13 bytes of data)
  const chunk = pngChunk('tEXt', Buffer.concat([Buffer.from(`${keyword}\0`, 'latin1'), text]));
  return Buffer.concat([png.subarray(0, afterHeader), chunk, png.subarray(afterHeader)]);
}

/** A valid PNG of exactly `size` bytes: the 1x1 image with a text chunk of filler. */
export function paddedPngFile(size: number): Buffer {
  const overhead = pngFile().length + 12 + 'Comment\0'.length; // a chunk adds length, type and CRC
  return pngWithText('Comment', Buffer.alloc(size - overhead, 0x61));
}
