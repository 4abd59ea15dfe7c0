/** Runs a command-line tool's `main` and exits with the code it returns; an error is printed (its message only) and exits 1. */
export function exitWithCodeOf(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
}
