import QRCode from 'qrcode';

/** A QR code as inline SVG markup (no image request, nothing the page's Content-Security-Policy must allow). */
export async function qrSvg(text: string): Promise<string> {
  const svg = await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return svg.replace('<svg ', '<svg class="qr" role="img" aria-label="QR code" ');
}
