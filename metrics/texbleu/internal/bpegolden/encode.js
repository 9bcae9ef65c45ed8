// Reads a JSON array of strings on stdin and prints, one JSON line each,
// {"text", "ids"} as the npm package gpt-3-encoder encodes it. Run by
// bpegolden with NODE_PATH pointing at an install of gpt-3-encoder@1.1.4.
const { encode } = require('gpt-3-encoder');
let input = '';
process.stdin.on('data', d => { input += d; });
process.stdin.on('end', () => {
  for (const text of JSON.parse(input)) {
    process.stdout.write(JSON.stringify({ text, ids: encode(text) }) + '\n');
  }
});
