/**
 * GraphQL's text taken composed (NFC), as every tool's input is (src/tools/text-guard.ts, docs/decisions.md "Text is
 * stored composed"): PostGraphile's own mutations (agentsCreate, viewerUpdate, ...) and filters (`condition`) read
 * the string literals of the document and the variables, and neither passes the tools' input check. Both go through
 * one place before a request executes, grafast's prepareArgs: there the document's string literals and every string
 * and field name of the variables are composed. A document with nothing to compose is the one grafserv parsed and
 * cached (so its operation plan is reused); one with something is composed once and kept beside it.
 */
import '../polyfills.ts';
import { Kind, visit, type DocumentNode, type StringValueNode } from 'postgraphile/graphql';
import { composed, isComposed } from '../tools/text-guard.ts';

const composedDocuments = new WeakMap<DocumentNode, DocumentNode>();

/** The document with every string literal (block strings included) composed; the same document when all are. */
export function composedDocument(doc: DocumentNode): DocumentNode {
  let done = composedDocuments.get(doc);
  if (!done) {
    // visit returns the document it was given when no node was replaced.
    done = visit(doc, {
      [Kind.STRING]: (node: StringValueNode) => (isComposed(node.value) ? undefined : { ...node, value: node.value.normalize('NFC') }),
    });
    composedDocuments.set(doc, done);
  }
  return done;
}

export const ComposedTextPlugin: GraphileConfig.Plugin = {
  name: 'SvcComposedTextPlugin',
  version: '0.0.0',
  grafast: {
    middleware: {
      prepareArgs(next, event) {
        const { args } = event;
        args.document = composedDocument(args.document);
        // The request's own variables (parsed JSON; their NUL, lone surrogates and depth were checked in server.ts).
        if (args.variableValues) args.variableValues = composed(args.variableValues);
        return next();
      },
    },
  },
};
