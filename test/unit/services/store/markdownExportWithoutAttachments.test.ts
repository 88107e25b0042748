/**
 * Export Chat without attached files: the Markdown still lists what each turn attached, their
 * content is nowhere in it (neither the visible text nor the hidden payload), and importing it gives a
 * chat that continues without them — said in the import's warnings. A payload with a snapshot missing
 * and no such mark is refused with a clear message.
 */
import * as assert from 'node:assert/strict';
import { ChatSession } from '../../../../src/services/chatSession';
import { MemoryWorkspace } from '../../../../src/services/memoryWorkspace';
import { modelInfo } from '../../../../src/services/modelInfo';
import { ScriptedProvider } from '../../../../src/services/providers/scripted';
import { ChatStore } from '../../../../src/services/store/chatStore';
import { embeddedAttachments } from '../../../../src/services/store/markdownExport';
import { getTokenizer } from '../../../../src/services/tokenizer';
import { tempDir } from '../../../support/tempDir';

const GPT = modelInfo('openai', 'gpt-4o');
const SECRET_FILE = 'export const marker = "FILE-CONTENT-7f3a";\n';
const SELECTED = ['a', 'SELECTED-LINE-91c2', 'c'].join('\n') + '\n';

async function chat(): Promise<ChatSession> {
  const session = ChatSession.open({
    storeRoot: tempDir('strata-export-'),
    port: new MemoryWorkspace({ 'src/a.ts': SECRET_FILE, 'src/b.ts': SELECTED }),
    tokenizer: (e) => getTokenizer(e),
    settings: () => ({ layout: 'transcript', policy: 'append-version' }),
    log: () => undefined,
    model: GPT,
    store: { durable: false, scrubEnvSecrets: false },
    newChatId: () => 'c1',
  });
  const provider = new ScriptedProvider(() => 'seen');
  await session.attach({ kind: 'file', path: 'src/a.ts' });
  await session.attach({ kind: 'selection', path: 'src/b.ts', startLine: 2, endLine: 2 });
  await session.send('look at these', provider, GPT);
  await session.send('and again', provider, GPT);
  return session;
}

function payloadOf(md: string): string {
  return Buffer.from(/<!-- strata-chat: ([A-Za-z0-9+/=]+) -->/.exec(md)![1], 'base64').toString('utf8');
}

describe('Export Chat without attached files', () => {
  it('counts what an export embeds; without them, lists them and carries none of their content; import continues the chat', async () => {
    const s = await chat();
    assert.equal(embeddedAttachments(s.engine.state).length, 2);
    const full = s.store.exportMarkdown('c1');
    assert.ok(payloadOf(full).includes('FILE-CONTENT-7f3a') && full.includes('SELECTED-LINE-91c2'), 'a full export embeds both');

    const bare = s.store.exportMarkdown('c1', [], { withoutAttachments: true });
    assert.ok(!bare.includes('SELECTED-LINE-91c2') && !payloadOf(bare).includes('SELECTED-LINE-91c2'), 'no selection snapshot');
    assert.ok(!payloadOf(bare).includes('FILE-CONTENT-7f3a'), 'no file content in the payload');
    assert.match(bare, /_Exported without attached files: the content of 2 attached item\(s\) is left out/);
    assert.match(bare, /- `src\/a\.ts` \(file, sha [0-9a-f]{8}\): sent in full \(content not in this export\)/);
    assert.match(bare, /\*\*You:\*\*\n\nlook at these/);

    const target = ChatStore.open(tempDir('strata-import-'));
    const r = target.importMarkdown(bare, { isAllowedPath: () => true });
    assert.equal(r.turns, 2);
    assert.match(r.warnings.join('\n'), /exported without its attached files: 2 attached item\(s\) are not in it/);
    const loaded = target.loadChat(r.chatId);
    assert.equal(loaded.state.entries.size, 0);
    assert.deepEqual(
      loaded.state.turns.map((t) => [t.userText, t.reply]),
      [
        ['look at these', 'seen'],
        ['and again', 'seen'],
      ],
    );
    // The imported chat opens and builds its next request.
    const again = ChatSession.open(
      {
        storeRoot: target.root,
        port: new MemoryWorkspace({}),
        tokenizer: (e) => getTokenizer(e),
        settings: () => ({ layout: 'transcript', policy: 'append-version' }),
        log: () => undefined,
        model: GPT,
        store: { durable: false },
      },
      r.chatId,
    );
    const next = again.predictedEnvelope()!;
    assert.equal(next.totalTokens, 134);
    assert.ok(!JSON.stringify(next.messages).includes('SELECTED-LINE-91c2'));
  });

  it('an export whose snapshot went missing (not marked as exported without) is refused, saying why', async () => {
    const s = await chat();
    const md = s.store.exportMarkdown('c1');
    const payload = JSON.parse(payloadOf(md)) as { blobs: Record<string, string> };
    const hash = Object.keys(payload.blobs).find((h) => payload.blobs[h].includes('SELECTED-LINE-91c2'))!;
    delete payload.blobs[hash];
    const broken = md.replace(
      /<!-- strata-chat: [A-Za-z0-9+/=]+ -->/,
      `<!-- strata-chat: ${Buffer.from(JSON.stringify(payload)).toString('base64')} -->`,
    );
    assert.throws(
      () => ChatStore.open(tempDir('strata-import-')).importMarkdown(broken, { isAllowedPath: () => true }),
      /the Strata chat metadata is invalid: .*blob [0-9a-f]{12}… is not in the export/,
    );
  });
});
