/** How an admin command shows its result (the program prints JSON; tests collect the values). */
export type Print = (value: unknown) => void;
