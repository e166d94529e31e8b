// Per-request dataloaders for what plugin-prisma's query planning does not cover.
import DataLoader from "dataloader";
import { htmlToMarkdown } from "../content/markdown.ts";
import type { FieldType, PrismaClient } from "../generated/prisma/client.ts";

export interface FieldDefinitionSummary {
  id: string;
  key: string;
  type: FieldType;
}

export interface Loaders {
  /** The workspace's custom field definitions, in position order: every post's `fields` needs them. */
  fieldDefinitions: DataLoader<string, FieldDefinitionSummary[]>;
  /** Markdown of an HTML body; the same body is converted once per request. */
  markdown: DataLoader<string, string>;
}

export function createLoaders(prisma: PrismaClient): Loaders {
  return {
    fieldDefinitions: new DataLoader(async (workspaceIds) => {
      const rows = await prisma.field.findMany({
        where: { workspaceId: { in: [...workspaceIds] } },
        select: { id: true, key: true, type: true, workspaceId: true },
        orderBy: [{ position: "asc" }, { createdAt: "asc" }],
      });
      return workspaceIds.map((id) => rows.filter((row) => row.workspaceId === id));
    }),
    markdown: new DataLoader(async (bodies) => bodies.map(htmlToMarkdown)),
  };
}
