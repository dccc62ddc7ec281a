// Score examples with an exported Mastra scorer; print one JSON result per example.
// Usage: node --experimental-strip-types runner.mjs scorer.ts examples.json
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

const [modulePath, examplesPath] = process.argv.slice(2)
const { scorer } = await import(pathToFileURL(modulePath).href)
const examples = JSON.parse(readFileSync(examplesPath, 'utf8'))
const results = []
for (const example of examples) {
  try {
    const result = await scorer.run({
      input: example.input,
      output: example.output,
      groundTruth: example.ground_truth,
      requestContext: example.request_context,
    })
    results.push({
      score: result.score ?? null,
      reason: result.reason ?? null,
      notScorable: result.notScorable?.reason ?? null,
    })
  } catch (error) {
    results.push({ error: String(error?.message ?? error) })
  }
}
process.stdout.write(JSON.stringify(results))
