// A skills server written with the official TypeScript SDK's own skills
// extension (@modelcontextprotocol/server's ext/skills): the folder named
// first serves its skills over stdio. Copied beside target/third-party's
// node_modules by the test, so its imports resolve there.
import { McpServer } from "@modelcontextprotocol/server";
import { StdioServerTransport } from "@modelcontextprotocol/server/stdio";
import { loadSkills } from "@modelcontextprotocol/server/ext/skills/node";

const skills = await loadSkills(process.argv[2]);
const mcp = new McpServer({ name: "ts-sdk-skills", version: "1.0.0" });
skills.attach(mcp);
await mcp.connect(new StdioServerTransport());
