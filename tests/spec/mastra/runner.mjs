// Score examples with exported Mastra scorers; print, per module, one JSON result per example.
// Usage: node --experimental-strip-types runner.mjs a.ts a.json [b.ts b.json ...]
import { readFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'

async function scoreAll(modulePath, examplesPath) {
  const { scorer, readJson } = await import(pathToFileURL(modulePath).href)
  // Read as the module's header says: its readJson keeps 89.0 apart from 89, as Python does.
  const examples = (readJson ?? JSON.parse)(readFileSync(examplesPath, 'utf8'))
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
  return results
}

const args = process.argv.slice(2)
const all = []
for (let i = 0; i < args.length; i += 2) all.push(await scoreAll(args[i], args[i + 1]))
process.stdout.write(JSON.stringify(all))
