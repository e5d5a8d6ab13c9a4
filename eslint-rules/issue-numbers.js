// @ts-check
/**
 * Comments and docs say what the code does and why, never its history: no issue or pull-request numbers ("#123",
 * "issue 12", "PR 7") in src/ and docs/. One pattern, used by the eslint rule `oraclekit/no-issue-numbers` (the
 * comments of src/) and by scripts/check-issue-numbers.mjs (the prose of docs/*.md, outside code).
 */

/** An issue or pull-request reference: "#12", "issue 12", "issue #12", "PR 12", "pull request #12". */
export const ISSUE_REF = /(?:^|[\s([,;])#\d{1,5}\b(?![\w-])|\b(?:issues?|PR|pull request)\s+#?\d+\b/i;

/** @type {import('eslint').Rule.RuleModule} */
const noIssueNumbers = {
  meta: {
    type: 'problem',
    docs: { description: 'no issue or pull-request numbers in comments: git keeps history' },
    schema: [],
  },
  create(context) {
    return {
      Program() {
        for (const c of context.sourceCode.getAllComments()) {
          const m = ISSUE_REF.exec(c.value);
          if (m)
            context.report({
              loc: c.loc ?? { line: 1, column: 0 },
              message: `a comment names an issue or pull request (${JSON.stringify(m[0].trim())}): say what the code does and why; history belongs to git`,
            });
        }
      },
    };
  },
};

export default { rules: { 'no-issue-numbers': noIssueNumbers } };
