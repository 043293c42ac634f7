//! Pi's `examples/extensions/snake.ts` (pi-coding-agent 0.73.1) as a tack plugin: `/snake` plays
//! Snake in place of the editor. Arrows or WASD steer; Esc pauses and keeps the game in the
//! session, so the next `/snake` resumes it (paused until a key); Q quits and forgets it; after a
//! crash, R or space starts again. The high score survives restarts.
//!
//! Pi's `ctx.ui.custom` with a component and `setInterval` is `tack:plugin/screen`'s
//! `show-component` (the SDK's [`Component`]): the command draws a frame and waits at most one
//! tick (100 ms) for a key; a `tick` answer moves the snake. `pi.appendEntry("snake-save", …)` is
//! `session.append-custom` of this plugin's own type. Two differences: tack draws a plugin's
//! lines without colours (a plugin may not send escape sequences), and Ctrl+C, which is always
//! tack's, closes the game as Esc does (paused and kept) rather than losing it.

use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};
use tack_sdk::screen::{Component, ComponentInput, ComponentPlacement};
use tack_sdk::{control, export_plugin, session, InitContext, Plugin, Registration};

const GAME_WIDTH: i32 = 40;
const GAME_HEIGHT: i32 = 15;
const TICK_MS: u32 = 100;
/// How long a paused or finished game waits for a key before drawing again.
const IDLE_MS: u32 = 10_000;
const SAVE_TYPE: &str = "snake-save";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Direction {
    Up,
    Down,
    Left,
    Right,
}

impl Direction {
    fn opposite(self) -> Direction {
        match self {
            Direction::Up => Direction::Down,
            Direction::Down => Direction::Up,
            Direction::Left => Direction::Right,
            Direction::Right => Direction::Left,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct Point {
    x: i32,
    y: i32,
}

/// The game as Pi's example saves it (the same fields, so a save reads the same).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct GameState {
    snake: Vec<Point>,
    food: Point,
    direction: Direction,
    next_direction: Direction,
    score: u32,
    game_over: bool,
    high_score: u32,
}

/// A small xorshift generator: where the food appears needs no more than that.
struct Dice(u64);

impl Dice {
    fn seeded() -> Dice {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0x9E37_79B9_7F4A_7C15);
        Dice(nanos | 1)
    }

    fn below(&mut self, bound: i32) -> i32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound.max(1) as u64) as i32
    }
}

impl GameState {
    fn new(dice: &mut Dice) -> GameState {
        let (x, y) = (GAME_WIDTH / 2, GAME_HEIGHT / 2);
        let snake = vec![Point { x, y }, Point { x: x - 1, y }, Point { x: x - 2, y }];
        GameState {
            food: food_for(&snake, dice),
            snake,
            direction: Direction::Right,
            next_direction: Direction::Right,
            score: 0,
            game_over: false,
            high_score: 0,
        }
    }

    fn steer(&mut self, to: Direction) {
        if self.direction != to.opposite() {
            self.next_direction = to;
        }
    }

    fn tick(&mut self, dice: &mut Dice) {
        self.direction = self.next_direction;
        let Some(&head) = self.snake.first() else {
            self.game_over = true;
            return;
        };
        let next = match self.direction {
            Direction::Up => Point {
                y: head.y - 1,
                ..head
            },
            Direction::Down => Point {
                y: head.y + 1,
                ..head
            },
            Direction::Left => Point {
                x: head.x - 1,
                ..head
            },
            Direction::Right => Point {
                x: head.x + 1,
                ..head
            },
        };
        let off_board = next.x < 0 || next.x >= GAME_WIDTH || next.y < 0 || next.y >= GAME_HEIGHT;
        if off_board || self.snake.contains(&next) {
            self.game_over = true;
            return;
        }
        self.snake.insert(0, next);
        if next == self.food {
            self.score += 10;
            self.high_score = self.high_score.max(self.score);
            self.food = food_for(&self.snake, dice);
        } else {
            self.snake.pop();
        }
    }
}

fn food_for(snake: &[Point], dice: &mut Dice) -> Point {
    loop {
        let food = Point {
            x: dice.below(GAME_WIDTH),
            y: dice.below(GAME_HEIGHT),
        };
        if !snake.contains(&food) {
            return food;
        }
    }
}

/// The board for a component `width` columns wide: each cell is two characters, so it looks
/// square in a terminal.
fn render(state: &GameState, paused: bool, width: u32) -> Vec<String> {
    let columns = ((width.saturating_sub(4) / 2) as i32).clamp(1, GAME_WIDTH);
    let inner = columns as usize * 2;
    let framed = |content: &str| {
        let pad = inner.saturating_sub(content.chars().count());
        format!(" │{content}{}│", " ".repeat(pad))
    };
    let rule = |left: char, right: char| format!(" {left}{}{right}", "─".repeat(inner));
    let mut lines = vec![
        rule('╭', '╮'),
        framed(&format!(
            "SNAKE │ Score: {} │ High: {}",
            state.score, state.high_score
        )),
        rule('├', '┤'),
    ];
    let head = state.snake.first().copied();
    for y in 0..GAME_HEIGHT {
        let mut row = String::with_capacity(inner);
        for x in 0..columns {
            let here = Point { x, y };
            row.push_str(if Some(here) == head {
                "██"
            } else if state.snake.iter().skip(1).any(|p| *p == here) {
                "▓▓"
            } else if state.food == here {
                "◆ "
            } else {
                "  "
            });
        }
        lines.push(format!(" │{row}│"));
    }
    lines.push(rule('├', '┤'));
    lines.push(framed(if paused {
        "PAUSED Press any key to continue, Q to quit"
    } else if state.game_over {
        "GAME OVER! Press R to restart, Q to quit"
    } else {
        "↑↓←→ or WASD to move, ESC pause, Q quit"
    }));
    lines.push(rule('╰', '╯'));
    lines
}

/// How a game ended.
enum Outcome {
    /// Paused (Esc, or Ctrl+C): kept in the session for the next `/snake`.
    Kept(GameState),
    /// Quit with Q from a running or finished game: the save is cleared.
    Forgotten,
    /// Quit with Q or Esc from the pause a resumed game starts in: the save stays as it was.
    Untouched,
}

fn play(saved: Option<GameState>) -> Outcome {
    let mut dice = Dice::seeded();
    let (mut state, mut paused) = match saved {
        Some(state) if !state.game_over => (state, true),
        Some(over) => {
            let mut state = GameState::new(&mut dice);
            state.high_score = over.high_score;
            (state, false)
        }
        None => (GameState::new(&mut dice), false),
    };
    let mut component = Component::open(ComponentPlacement::Editor);
    loop {
        let lines = render(&state, paused, component.width());
        let wait = if paused || state.game_over {
            IDLE_MS
        } else {
            TICK_MS
        };
        let key = match component.frame(&lines, wait) {
            ComponentInput::Closed => {
                return if paused {
                    Outcome::Untouched
                } else {
                    Outcome::Kept(state)
                };
            }
            ComponentInput::Tick => {
                if !paused && !state.game_over {
                    state.tick(&mut dice);
                }
                continue;
            }
            ComponentInput::Paste(_) => continue,
            ComponentInput::Key(key) => key,
        };
        if paused {
            if key == "escape" || key.eq_ignore_ascii_case("q") {
                return Outcome::Untouched;
            }
            paused = false;
            continue;
        }
        match key.as_str() {
            "escape" => return Outcome::Kept(state),
            "q" | "Q" => return Outcome::Forgotten,
            "up" | "w" | "W" => state.steer(Direction::Up),
            "down" | "s" | "S" => state.steer(Direction::Down),
            "left" | "a" | "A" => state.steer(Direction::Left),
            "right" | "d" | "D" => state.steer(Direction::Right),
            "r" | "R" | "space" if state.game_over => {
                let high_score = state.high_score;
                state = GameState::new(&mut dice);
                state.high_score = high_score;
                // As Pi's: a restart clears the save. Failing to is no reason to stop playing.
                if let Err(e) = session::append_state(SAVE_TYPE, &Option::<GameState>::None) {
                    tack_sdk::log::warn(format!("cannot clear the saved game: {e}"));
                }
            }
            _ => {}
        }
    }
}

#[derive(Default)]
struct Snake;

impl Plugin for Snake {
    fn init(&mut self, _ctx: &InitContext) -> Result<Registration, String> {
        Ok(Registration::new().command("snake", "Play Snake!"))
    }

    fn run_command(&mut self, _name: &str, _args: &str) -> Result<Option<String>, String> {
        if !control::has_ui() {
            return Err("Snake requires interactive mode".to_string());
        }
        let saved = session::latest_state::<Option<GameState>>(SAVE_TYPE)?.flatten();
        match play(saved) {
            Outcome::Kept(state) => {
                session::append_state(SAVE_TYPE, &Some(state))?;
                Ok(Some("Snake paused: /snake resumes it".to_string()))
            }
            Outcome::Forgotten => {
                session::append_state(SAVE_TYPE, &Option::<GameState>::None)?;
                Ok(None)
            }
            Outcome::Untouched => Ok(None),
        }
    }
}

export_plugin!(Snake);
