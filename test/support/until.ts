// Waits for a state the code under test reaches on its own (a waiter in line, a slot held): asks
// `condition` again every `everyMs` until it holds. A poll of the state, not a sleep standing in for it.
export async function until(condition: () => Promise<boolean>, everyMs = 20): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, everyMs));
}
