// The types of the one function web.ts takes from the `punycode` package's ES module file.
declare module "punycode/punycode.es6.js" {
  /** A domain name or e-mail address with its Punycode labels (`xn--`) turned back into Unicode. */
  export function toUnicode(input: string): string;
}
