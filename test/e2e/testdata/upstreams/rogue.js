// A deliberately misbehaving MCP server over stdio, for the gateway tests.
// node rogue.js MODE, where MODE is one of:
//   silent   reads its input and never answers anything (not even initialize)
//   garbage  writes lines that are not JSON-RPC between its real answers
//   huge     answers tools/call "huge" with a 50 MB text result
//   flood    answers tools/call "flood" after writing 20,000 log notifications
// Otherwise it is a small, correct server. In every mode that answers:
// "say" says its words back; "grow" adds a tool "grown" and sends
// notifications/tools/list_changed; "slow" sends three progress
// notifications (to the call's progressToken) and then waits for
// notifications/cancelled, which "cancels" reports.
const mode = process.argv[2] || "normal";
const readline = require("readline");
const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
const send = (m) => process.stdout.write(JSON.stringify(m) + "\n");
const garbage = (s) => { if (mode === "garbage") process.stdout.write(s + "\n"); };
const tools = [
  { name: "say", description: "Says the words back", inputSchema: { type: "object", properties: { words: { type: "string" } }, required: ["words"] } },
  { name: "huge", description: "Answers 50 MB", inputSchema: { type: "object" } },
  { name: "flood", description: "Floods log notifications, then answers", inputSchema: { type: "object" } },
  { name: "grow", description: "Adds a tool", inputSchema: { type: "object" } },
  { name: "slow", description: "Reports progress, then waits to be cancelled", inputSchema: { type: "object" } },
  { name: "cancels", description: "The requests cancelled so far", inputSchema: { type: "object" } },
];
const cancelled = [];
rl.on("line", (line) => {
  if (mode === "silent") return;
  let msg;
  try { msg = JSON.parse(line); } catch { return; }
  garbage("this is not JSON at all {{{");
  if (msg.method === "notifications/cancelled") {
    cancelled.push(msg.params.requestId);
    return;
  }
  if (msg.method === "initialize") {
    garbage('{"jsonrpc":"2.0","id":"not-a-request-of-yours","result":{}}');
    send({ jsonrpc: "2.0", id: msg.id, result: { protocolVersion: msg.params.protocolVersion, capabilities: { tools: { listChanged: true }, logging: {} }, serverInfo: { name: "rogue-" + mode, version: "1.0.0" } } });
  } else if (msg.method === "tools/list") {
    garbage("\u0000\u0001 binary noise \u00ff");
    send({ jsonrpc: "2.0", id: msg.id, result: { tools } });
  } else if (msg.method === "ping") {
    send({ jsonrpc: "2.0", id: msg.id, result: {} });
  } else if (msg.method === "tools/call") {
    const name = msg.params.name;
    if (name === "huge") {
      const text = "x".repeat(50 * 1024 * 1024);
      process.stdout.write('{"result":{"content":[{"type":"text","text":"' + text + '"}]},"jsonrpc":"2.0","id":' + JSON.stringify(msg.id) + "}\n");
    } else if (name === "grow") {
      if (!tools.some((t) => t.name === "grown")) tools.push({ name: "grown", description: "A tool added at run time", inputSchema: { type: "object" } });
      send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      send({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "grew" }] } });
    } else if (name === "slow") {
      const token = (msg.params._meta || {}).progressToken;
      for (let i = 1; i <= 3; i++) {
        if (token !== undefined) send({ jsonrpc: "2.0", method: "notifications/progress", params: { progressToken: token, progress: i, total: 3, message: "step " + i } });
      }
    } else if (name === "cancels") {
      send({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: JSON.stringify(cancelled) }] } });
    } else if (name === "flood") {
      for (let i = 0; i < 20000; i++) send({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "flood " + i } });
      send({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "flooded" }] } });
    } else {
      send({ jsonrpc: "2.0", id: msg.id, result: { content: [{ type: "text", text: "said: " + (msg.params.arguments || {}).words }] } });
    }
  } else if (msg.id !== undefined) {
    send({ jsonrpc: "2.0", id: msg.id, error: { code: -32601, message: "no method " + msg.method } });
  }
});
