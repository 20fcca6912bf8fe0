/** A built view's size in bytes: minified HTML, and gzipped at level 9. */
export interface ViewSize {
  view: string;
  minified: number;
  gzipped: number;
}
export declare const KIB: number;
/** Each built view's size, in the order `VIEWS` lists them. */
export declare function viewSizes(): ViewSize[];
/** The sizes as the READMEs' Markdown table, in whole KiB. */
export declare function viewSizesTable(): string;
