import { parseResourceUri } from '../../../facades/mcp/resources.js';
import { checkModernRequest } from '../../../facades/mcp/revision.js';

describe('resource URIs', () => {
  it('reads documents, pages and project inventories, and nothing else', () => {
    expect(parseResourceUri('pds://documents/12')).toEqual({ kind: 'document', documentId: 12, page: null });
    expect(parseResourceUri('pds://documents/12/pages/3')).toEqual({
      kind: 'document',
      documentId: 12,
      page: 3,
    });
    expect(parseResourceUri('pds://projects/4/documents?cursor=abc.def')).toEqual({
      kind: 'project-documents',
      projectId: 4,
      cursor: 'abc.def',
    });
    for (const uri of [
      'pds://documents/0',
      'pds://documents/99999999999',
      'pds://documents/12/pages/0',
      'pds://documents/12/',
      'file:///etc/passwd',
      'pds://documents/12?x=1',
      'pds://projects/4/documents?cursor=',
    ])
      expect([uri, parseResourceUri(uri)]).toEqual([uri, null]);
  });
});

describe('2026-07-28 request checks', () => {
  const supported = ['2026-07-28', '2025-11-25'];
  const params = (extra = {}) => ({
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
    ...extra,
  });
  const headers = { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'prompts/get', 'mcp-name': 'x y' };

  it('passes a request whose headers mirror its body, Base64-encoded or not', () => {
    const message = { method: 'prompts/get', params: params({ name: 'x y' }) };
    expect(checkModernRequest(message, '2026-07-28', headers, supported)).toBeNull();
    const encoded = { ...headers, 'mcp-name': `=?base64?${Buffer.from('x y').toString('base64')}?=` };
    expect(checkModernRequest(message, '2026-07-28', encoded, supported)).toBeNull();
  });

  it('refuses other versions with -32022 and mismatched or broken headers with -32020', () => {
    const message = { method: 'prompts/get', params: params({ name: 'x y' }) };
    expect(
      checkModernRequest(
        message,
        '2025-11-25',
        { ...headers, 'mcp-protocol-version': '2025-11-25' },
        supported,
      ),
    ).toMatchObject({
      status: 400,
      code: -32022,
      data: { supported, requested: '2025-11-25' },
    });
    for (const bad of [
      { ...headers, 'mcp-name': 'other' },
      { ...headers, 'mcp-name': '=?base64?!!!?=' },
      { ...headers, 'mcp-method': 'tools/call' },
      { 'mcp-method': 'prompts/get', 'mcp-name': 'x y' },
      // The header and _meta disagree: a mismatch, whichever of them names a version served.
      { ...headers, 'mcp-protocol-version': '2025-11-25' },
    ])
      expect(checkModernRequest(message, '2026-07-28', bad, supported)).toMatchObject({
        status: 400,
        code: -32020,
      });
  });
});
