/**
 * firecrawl (runtime.md, the web-crawl plugin): an MCP client (Streamable
 * HTTP) to a Firecrawl MCP server (FIRECRAWL_MCP_URL): its search and scrape
 * tools for the agent. By default only the tools whose names contain
 * "search" or "scrape" are offered (firecrawl_search, firecrawl_scrape);
 * FIRECRAWL_MCP_TOOLS picks others ('*' for all). On-demand.
 */
import { createMcpPlugin } from '../_mcp/plugin.ts';

export const firecrawlPlugin = createMcpPlugin({
  name: 'firecrawl',
  prefix: 'FIRECRAWL',
  defaultTimeoutMs: 60_000,
  manifest: {
    title: 'Web search and scrape',
    summary: 'Search the web and read web pages (as markdown) through a Firecrawl MCP server.',
    whenToUse: [
      'the user asks about something current or outside your knowledge that the web can answer',
      'the user gives a URL and asks what it says',
    ],
    whenNotToUse: ['facts about the user (memory)', 'questions you can answer reliably without the web'],
    visibility: 'on-demand',
    stability: 'beta',
    category: 'information',
    defaultState: 'on',
    dependsOn: [],
  },
  defaultToolFilter: (t) => /search|scrape/i.test(t.name),
  describePrefix: '[web] ',
});
