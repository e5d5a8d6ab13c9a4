declare module 'qrcode-terminal' {
  const qrcode: {
    generate(text: string, opts: { small?: boolean }, cb: (qr: string) => void): void;
    setErrorLevel(level: string): void;
  };
  export default qrcode;
}
