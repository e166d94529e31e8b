-- AlterTable
ALTER TABLE "Post" ADD COLUMN     "previewGeneration" INTEGER NOT NULL DEFAULT 0;
