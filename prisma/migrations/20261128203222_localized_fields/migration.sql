-- Localized custom fields (issue 56): a definition says whether its values are per translation. The
-- default locale's values stay in PostFieldValue (the default's translation is the post's own row); the
-- other locales' values of a localized field live here, and go with their translation and their field.
-- AlterTable
ALTER TABLE "Field" ADD COLUMN     "localized" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "PostTranslationFieldValue" (
    "postId" TEXT NOT NULL,
    "locale" TEXT NOT NULL,
    "fieldId" TEXT NOT NULL,
    "value" JSONB NOT NULL,

    CONSTRAINT "PostTranslationFieldValue_pkey" PRIMARY KEY ("postId","locale","fieldId")
);

-- CreateIndex
CREATE INDEX "PostTranslationFieldValue_fieldId_idx" ON "PostTranslationFieldValue"("fieldId");

-- AddForeignKey
ALTER TABLE "PostTranslationFieldValue" ADD CONSTRAINT "PostTranslationFieldValue_postId_locale_fkey" FOREIGN KEY ("postId", "locale") REFERENCES "PostTranslation"("postId", "locale") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "PostTranslationFieldValue" ADD CONSTRAINT "PostTranslationFieldValue_fieldId_fkey" FOREIGN KEY ("fieldId") REFERENCES "Field"("id") ON DELETE CASCADE ON UPDATE CASCADE;
