// The XML both RSS and Atom are written in: well-formedness checked first (a truncated or HTML
// page is a FeedError, not an empty feed), then read into plain objects by fast-xml-parser.
import { createRequire } from 'node:module';
import { FeedError } from './http.ts';

export type XmlNode = Record<string, unknown>;

type Fxp = typeof import('fast-xml-parser');
let xml: { parser: InstanceType<Fxp['XMLParser']>; validator: Fxp['XMLValidator'] } | undefined;

/** The parser, loaded on the first feed read: a server that syncs no XML source never holds it, nor its heap. */
function loadXml(): NonNullable<typeof xml> {
  if (xml) return xml;
  const { XMLParser, XMLValidator } = createRequire(import.meta.url)('fast-xml-parser') as Fxp;
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@_',
    textNodeName: '#text',
    parseTagValue: false,
    parseAttributeValue: false,
    trimValues: true,
    // Bounded expansion of DOCTYPE entities (the library's limits), no billion laughs.
    processEntities: { enabled: true, maxEntityCount: 50, maxTotalExpansions: 1000, maxExpandedLength: 100_000 },
  });
  xml = { parser, validator: XMLValidator };
  return xml;
}

/** The document as objects; `url` names it in the error when it is not well-formed XML. */
export function parseXml(text: string, url: string): XmlNode {
  const { parser, validator } = loadXml();
  const checked = validator.validate(text);
  if (checked !== true) {
    const { msg, line, col } = checked.err;
    throw new FeedError(`${url}: not well-formed XML (line ${line}, column ${col}): ${msg}`);
  }
  try {
    return parser.parse(text) as XmlNode;
  } catch (err) {
    throw new FeedError(`${url}: cannot read the XML: ${(err as Error).message}`);
  }
}

/** One or many children as a list (the parser gives a lone child as itself). */
export function list(value: unknown): unknown[] {
  return value === undefined || value === null ? [] : Array.isArray(value) ? value : [value];
}

/** The text of an element, whether it came as a string or as an object with attributes. */
export function textOf(value: unknown): string | undefined {
  const node = Array.isArray(value) ? value[0] : value;
  if (typeof node === 'string') return node;
  if (typeof node === 'number' || typeof node === 'boolean') return String(node);
  if (node && typeof node === 'object') {
    const text = (node as XmlNode)['#text'];
    return typeof text === 'string' ? text : text === undefined ? undefined : String(text);
  }
  return undefined;
}

export function attr(value: unknown, name: string): string | undefined {
  const node = Array.isArray(value) ? value[0] : value;
  if (!node || typeof node !== 'object') return undefined;
  const v = (node as XmlNode)[`@_${name}`];
  return typeof v === 'string' ? v : undefined;
}

/** All the text inside an element and its children (Atom's type="xhtml" content), in document order as far as the parser kept it. */
export function deepText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(deepText).join(' ');
  if (value && typeof value === 'object') {
    return Object.entries(value as XmlNode)
      .filter(([k]) => !k.startsWith('@_'))
      .map(([, v]) => deepText(v))
      .join(' ');
  }
  return '';
}

export function isObject(value: unknown): value is XmlNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
