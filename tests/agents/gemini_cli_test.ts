// End to end through bugbout's race and sandbox; see _suite.ts and docs/agents-verified.md.
import { agentSuite } from "./_suite.ts";

await agentSuite("gemini-cli");
