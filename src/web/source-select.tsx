import type { FC } from "hono/jsx";

/** Narrows a panel to one data source; hidden when the corpus has only one, since it would change nothing. */
export const SourceSelect: FC<{ id: string; sources: string[]; selected: string }> = ({ id, sources, selected }) => {
  if (sources.length < 2 && selected === "") return null;
  return (
    <div class="fit">
      <label for={id}>Source</label>
      <select id={id} name="dataSource">
        <option value="">All sources</option>
        {sources.map((source) => (
          <option value={source} selected={source === selected}>
            {source}
          </option>
        ))}
      </select>
    </div>
  );
};
