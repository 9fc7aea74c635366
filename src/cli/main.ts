export async function main(argv: readonly string[]): Promise<void> {
  process.stdout.write(`mftops ${argv.slice(2).join(' ')}\n`);
}
