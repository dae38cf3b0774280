from ddp_lessons.cli import main

raise SystemExit(main())
